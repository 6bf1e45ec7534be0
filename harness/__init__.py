"""Browser drivers for the browser tests, the benchmarks, the screenshots and the recorder: Debian's Chromium and
Firefox ESR started headless with the unpacked extension, a page server on 127.0.0.1, the host registered as a
user registers it. Neither training (`export/`) nor the runtime (`native_host/`) is its business."""
