"""IP addresses (v4 and v6), validated by the standard library's ipaddress parser."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

from .base import SHARED_RULES, Match, business_context, one_of

_V4_RE = re.compile(r"(?<![A-Za-z0-9_.])(?:\d{1,3}\.){3}\d{1,3}(?![A-Za-z0-9_]|\.\d)")
_V6_RE = re.compile(r"(?<![A-Za-z0-9_:])(?:[0-9A-Fa-f]{0,4}:){2,7}"
                    r"(?:[0-9A-Fa-f]{0,4}|(?:\d{1,3}\.){3}\d{1,3})(?![A-Za-z0-9_:])")
# The words before a version ("version 1.2.3.4", "v2.0.1.7", 版本): `version_words` in en-US, hi-IN and zh-CN.
_VERSION_CUE = re.compile(f"(?:{one_of([w for r in SHARED_RULES for w in r.shared_version_words])})$", re.IGNORECASE)




def find_ips(text: str) -> Iterator[Match]:
    if "." in text:
        for m in _V4_RE.finditer(text):
            if _VERSION_CUE.search(text, max(0, m.start() - 9), m.start()) or business_context(
                    text, m.start(), 20, m.end()):
                continue  # "version 1.2.3.4", "customer number is 4.4.7.1" (ASR dots between spoken digits)
            try:
                ip = ipaddress.IPv4Address(m.group())
            except ValueError:
                continue
            yield Match("ip_address", m.start(), m.end(), 0.9, "ipaddress", str(ip))
    if text.count(":") >= 2:
        for m in _V6_RE.finditer(text):
            try:
                ip6 = ipaddress.IPv6Address(m.group())
            except ValueError:
                continue
            yield Match("ip_address", m.start(), m.end(), 0.9, "ipaddress", ip6.compressed)
