"""Dates as pages write them -> ISO 8601, without a date library.

Structured data (JSON-LD, OpenGraph, `<time datetime>`, meta tags) writes dates as ISO 8601 or RFC 2822
nearly always; bylines write them as words ("March 3, 2024", "3. März 2024", "2024年3月3日") or numbers
("03/03/2024"). This parser reads those forms, with month names in the languages of the data Pith is measured
on. On the dev pages it scores above `dateparser` and `htmldate`, in a fraction of their import and parse
time (docs/metadata.md has the figures and the decision).

A date keeps what the page says: "2024-03-03" for a day, "2024-03-03T08:00:00+01:00" when it gives a time
(and its offset, if any). Nothing is converted between time zones: the day written is the day a reader saw.
"""

from __future__ import annotations

import re
from datetime import date as Date

EARLIEST_YEAR = 1990  # older dates on the web are almost always something else (a founding year, a birthday)
LATEST_AHEAD = 1  # years past today still taken (time zones, scheduled posts)

# Month names and common abbreviations: en, de, fr, es, it, pt, nl, sv/da/no, pl, cs, ru, el, id, tr.
_MONTHS = {
    1: "january jan januar jänner janvier enero ene gennaio genn gen janeiro januari januar stycznia styczeń "
    "ledna leden января январь ιανουαρίου ιανουάριος ocak",
    2: "february feb februar février fevrier févr fevr febrero febbraio fev fevereiro februari lutego luty "
    "února únor февраля февраль φεβρουαρίου φεβρουάριος şubat subat",
    3: "march mar märz maerz mär mars marzo março marco maart maret marca marzec března březen марта март "
    "μαρτίου μάρτιος mart",
    4: "april apr avril abril aprile abr aprile kwietnia kwiecień dubna duben апреля апрель απριλίου απρίλιος nisan",
    5: "may mai mayo maggio mag maio mei maj maja máj května květen мая май μαΐου μαΐου μάιος mayıs mayis",
    6: "june jun juni juin junio giugno giu junho czerwca czerwiec června červen июня июнь ιουνίου ιούνιος haziran",
    7: "july jul juli juillet juil julio luglio lug julho lipca lipiec července červenec июля июль "
    "ιουλίου ιούλιος temmuz",
    8: "august aug août aout agosto ago augustus agustus sierpnia sierpień srpna srpen августа август "
    "αυγούστου αύγουστος ağustos agustos",
    9: "september sep sept septembre septiembre settembre set setembro september wrzesnia września "
    "wrzesień září сентября сентябрь σεπτεμβρίου σεπτέμβριος eylül eylul",
    10: "october oct oktober octobre octubre ottobre ott outubro out oktober okt października październik "
    "října říjen октября октябрь οκτωβρίου οκτώβριος ekim",
    11: "november nov novembre noviembre novembro nop listopada listopad listopadu листопад ноября ноябрь "
    "νοεμβρίου νοέμβριος kasım kasim",
    12: "december dec dezember décembre decembre déc diciembre dic dicembre dezembro dez desember des "
    "grudnia grudzień prosince prosinec декабря декабрь δεκεμβρίου δεκέμβριος aralık aralik",
}
MONTHS = {name: number for number, names in _MONTHS.items() for name in names.split()}
_MONTH = "(" + "|".join(sorted((re.escape(m) for m in MONTHS), key=len, reverse=True)) + r")\.?"

_TIME = r"(?:[T ]\s*(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*(Z|[+-]\d{2}:?\d{2}|UTC|GMT)?)?"
_ISO = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})" + _TIME + r"(?!\d)", re.I)
_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})?)?(Z)?$")
_YMD = re.compile(r"(?<!\d)(\d{4})\s*[/.年]\s*(\d{1,2})\s*[/.月]\s*(\d{1,2})\s*日?(?!\d)")
_DMY_NUM = re.compile(r"(?<![\d.])(\d{1,2})\s*([./-])\s*(\d{1,2})\s*\2\s*(\d{4})(?!\d)")
_DAY_MONTH_YEAR = re.compile(
    r"(?<!\w)(\d{1,2})(?:st|nd|rd|th|er|º|°)?\.?\s*(?:de\s+)?" + _MONTH + r",?\s*(?:de\s+)?(\d{4})(?!\d)", re.I
)
_MONTH_DAY_YEAR = re.compile(r"(?<!\w)" + _MONTH + r"\s*(\d{1,2})(?:st|nd|rd|th)?\s*,?\s*(\d{4})(?!\d)", re.I)
_CLOCK = re.compile(r"(?<!\d)(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?", re.I)
_RFC_ZONE = re.compile(r"(?<!\w)(GMT|UTC|UT|Z|[+-]\d{4})\s*$", re.I)
_US_LANGS = ("en-us", "en_us")
# Every pattern above holds a year of four digits: text without four digits in a row holds no date (most of
# the short blocks a page offers as datelines).
_YEAR_DIGITS = re.compile(r"\d{4}")


def _month(name: str) -> int:
    """A month name the regex matched -> its number; 0 (no date) for a spelling it matched that the table does
    not hold: case-insensitive matching takes "NİSAN" or "ſept", whose lower case is no key."""
    return MONTHS.get(name.lower(), 0)


def _plausible(year: int, month: int, day: int) -> Date | None:
    try:
        when = Date(year, month, day)
    except ValueError:
        return None
    if year < EARLIEST_YEAR or year > Date.today().year + LATEST_AHEAD:
        return None
    return when


def _offset(zone: str | None) -> str:
    if not zone:
        return ""
    zone = zone.upper()
    if zone in ("Z", "UTC", "GMT", "UT"):
        return "+00:00"
    digits = zone[1:].replace(":", "")
    return f"{zone[0]}{digits[:2]}:{digits[2:4]}"


def _with_time(day: Date, hour: str | None, minute: str | None, second: str | None, zone: str | None) -> str:
    # The patterns give an hour and a minute together or neither; both are tested so the checker sees it.
    if hour is None or minute is None or not (0 <= int(hour) <= 23 and 0 <= int(minute) <= 59):
        return day.isoformat()
    second = second if second is not None and int(second) <= 59 else "00"
    return f"{day.isoformat()}T{int(hour):02d}:{minute}:{second}{_offset(zone)}"


def parse_iso(text: str) -> str | None:
    """A date (and time) in ISO 8601 or its close kin ("2024-03-03 08:00:00", "20240303"), else None."""
    text = text.strip()
    match = _ISO.search(text[:64])
    if match:
        day = _plausible(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        return _with_time(day, *match.group(4, 5, 6, 7)) if day else None
    match = _COMPACT.match(text)
    if match:
        day = _plausible(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        return _with_time(day, match.group(4), match.group(5), match.group(6), match.group(7)) if day else None
    return None


def parse_date(text: str | None, lang: str | None = None) -> str | None:
    """The first date written in `text` as ISO 8601, or None. `lang` settles 03/04/2024: April 3rd unless the
    page is en-US; a day over 12 settles it whatever the language."""
    if not text or not isinstance(text, str) or not _YEAR_DIGITS.search(text):
        return None
    text = " ".join(text.split())[:256]
    found = parse_iso(text)
    if found:
        return found
    candidates: list[tuple[int, Date]] = []
    for match in _YMD.finditer(text):
        day = _plausible(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        if day:
            candidates.append((match.start(), day))
            break
    for match in _DAY_MONTH_YEAR.finditer(text):
        day = _plausible(int(match.group(3)), _month(match.group(2)), int(match.group(1)))
        if day:
            candidates.append((match.start(), day))
            break
    for match in _MONTH_DAY_YEAR.finditer(text):
        day = _plausible(int(match.group(3)), _month(match.group(1)), int(match.group(2)))
        if day:
            candidates.append((match.start(), day))
            break
    for match in _DMY_NUM.finditer(text):
        first, second, year = int(match.group(1)), int(match.group(3)), int(match.group(4))
        us = (lang or "").lower().startswith(_US_LANGS) or (match.group(2) == "/" and not lang)
        month, day_of = (first, second) if (us and first <= 12) or second > 12 else (second, first)
        day = _plausible(year, month, day_of)
        if day:
            candidates.append((match.start(), day))
            break
    if not candidates:
        return None
    start, day = min(candidates, key=lambda c: c[0])
    return _clock_after(text, start, day)


def _clock_after(text: str, start: int, day: Date) -> str:
    """The day, with the time written right after it ("March 3, 2024 at 8:15 pm GMT") when there is one."""
    clock = _CLOCK.search(text, start, start + 64)
    if not clock:
        return day.isoformat()
    hour, minute = int(clock.group(1)), clock.group(2)
    half = (clock.group(4) or "").lower().replace(".", "")
    if half == "pm" and hour < 12:
        hour += 12
    elif half == "am" and hour == 12:
        hour = 0
    zone = _RFC_ZONE.search(text[clock.end() : clock.end() + 8])
    return _with_time(day, str(hour), minute, clock.group(3), zone.group(1) if zone else None)
