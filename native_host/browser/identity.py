"""Who Pith is to the browsers: the native-messaging host name and the extension ids it serves.

The Chromium id is derived from the fixed public `key` in extension/manifest.json (sha256 of the DER
key, first 32 hex digits mapped 0-f to a-p); a test checks that the two agree.
"""

HOST_NAME = "org.pith.reader"
CHROMIUM_EXTENSION_ID = "ecknenpnhaombhgabllpkdbglahblgam"
FIREFOX_EXTENSION_ID = "pith@pith-reader.org"
# The manifest's "key": public half only; no private key exists in the repository.
EXTENSION_PUBLIC_KEY = (
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAo3iREJn8W2+/QF7CXMTkdG0ofKD/t8OfjVAvfY9g5pSzldo4bGR3TNh0/JrlXs"
    "MUbvO5HUxsywly1OBdDVeo4D6zuUXazy/uTVtyEtjmzPgRRzN36ifCWnFsxgQrqgMIwMax6t5AYHdC+ZSzzFiZhSNnDckgn4PuGw/kNF2O"
    "ugeO7ceQT13GVt3LIDShpUa/2nPpyNvKfNa9PvSPwzuVjiR8Rpxw2hu6xR/cOGVc5nCmdx5+PsBI4pz49W+Zk1GWnnqpZz58Ho8VnV+e6t"
    "EtkY4onqL0KnJH3qCLPtM9bmZc9+A5iM8IgEtA5NwJKbAcVpiFs1s4raMlm9DXSGB9FQIDAQAB"
)


def chromium_origin() -> str:
    return f"chrome-extension://{CHROMIUM_EXTENSION_ID}/"
