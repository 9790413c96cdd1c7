"""The registered locale packs. A record's `locale` must name one of these."""

from __future__ import annotations

from .base import LocalePack

_PII_COMMON = ("phone", "email", "payment_card", "iban", "ip_address", "person_name", "address")

PACKS: dict[str, LocalePack] = {
    p.id: p
    for p in (
        LocalePack("en-US", ("en", "en-US"), "en", siblings=("en-GB",), phone_regions=("US", "CA"),
                   pii_types=_PII_COMMON + ("us_ssn", "us_zip")),
        LocalePack("en-GB", ("en", "en-GB"), "en", siblings=("en-US",), phone_regions=("GB",),
                   pii_types=_PII_COMMON + ("uk_nino", "uk_nhs", "uk_postcode")),
        LocalePack("en-IN", ("en", "en-IN", "hi-Latn", "hi"), "en", siblings=("hi-Latn-IN", "hi-IN"),
                   phone_regions=("IN",), romanized_hindi=True,
                   pii_types=_PII_COMMON + ("in_aadhaar", "in_pan", "in_upi", "in_pin")),
        LocalePack("hi-Latn-IN", ("hi-Latn", "hi", "en", "en-IN"), "hi-Latn", siblings=("en-IN", "hi-IN"),
                   phone_regions=("IN",), romanized_hindi=True,
                   pii_types=_PII_COMMON + ("in_aadhaar", "in_pan", "in_upi", "in_pin")),
        LocalePack("hi-IN", ("hi", "hi-Latn", "en", "en-IN"), "hi", siblings=("hi-Latn-IN", "en-IN"),
                   phone_regions=("IN",), romanized_hindi=True,
                   pii_types=_PII_COMMON + ("in_aadhaar", "in_pan", "in_upi", "in_pin")),
        LocalePack("zh-CN", ("zh", "zh-CN", "zh-Hans", "en"), "zh", siblings=(), phone_regions=("CN",),
                   pii_types=_PII_COMMON + ("cn_resident_id", "cn_postcode")),
    )
}


class UnknownLocale(KeyError):
    pass


def get_pack(locale: str) -> LocalePack:
    try:
        return PACKS[locale]
    except KeyError:
        raise UnknownLocale(
            f"unknown locale {locale!r}; registered packs: {', '.join(sorted(PACKS))}"
        ) from None


def declared_languages(locale: str) -> set[str]:
    """Languages the pack or one of its sibling packs declares (the rule for turns[].lang)."""
    pack = get_pack(locale)
    langs = set(pack.languages)
    for sib in pack.siblings:
        langs.update(PACKS[sib].languages)
    return langs
