"""First and last names by country, from the `names-dataset` package, derived once into a compact table.

Why a derived table: names-dataset ships ~1.7 M names for 100+ countries as two pickles that take
~13 s and ~1.9 GB of memory to load. The recognizers need a few thousand top-ranked names for the
built-in packs' countries (COUNTRIES), so the first process that needs them derives that table in a
*child* process (the parent never holds the big pickles); the parent writes it atomically to the user
cache ($VAK_CACHE or ~/.cache/vak_pipeline, never the repository), and every later load reads ~1 MB of JSON.

Which names are also ordinary words ("will", "may", "grace", "bill", "mark", "rose", "hope") is
decided from two well-kept word lists at derivation time: a token is *common* when Webster's 2nd
(english-words, where proper names are capitalised) lists it in lower case AND wordfreq puts it at
Zipf >= 4.3 in English, unless it is a top-150 US/UK given name below Zipf 5 (whose frequency is the
name's own). "john", "mary" stay names; "mark", "will", "bill", "grace", "rose", "hope" are common.

For identifiers (file names, speaker ids) the table also keeps `rare`: names of at least two countries that
no word list knows as a word (`raghunathan`), so a lone surname in a file name is found (`_rare_names`), and
the high-recall identifier policy's two lists, `ident` and `ident_words` (`_identifier_names`).

The table is a function of the names-dataset version and the constants below: `fingerprint()` names
both and goes into the redaction stage's cache key, so a new table re-redacts once.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.metadata
import json
import logging
import os
import pickle
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

# the countries of the built-in packs' `name_countries` (en, hi, zh, and the European packs: de, fr, es, nl, sv)
COUNTRIES = ("IN", "CN", "TW", "HK", "US", "GB", "DE", "AT", "FR", "BE", "ES", "NL", "SE")
MAX_RANK = 6000  # names ranked below this in every listed country are not kept
COMMON_ZIPF = 4.3  # a lower-case dictionary word at least this frequent is "common" (needs context)
NAME_FIRST_RANK, NAME_FIRST_ZIPF = 150, 5.0  # ... unless a top US/UK given name less frequent than this
# rare names for identifiers (`rare`): any country's top RARE_RANK in at least RARE_COUNTRIES countries, rarer than
# RARE_EN_ZIPF in English and than RARE_OTHER_ZIPF in every STOP_LANGUAGES list, never a Webster's 2nd word
RARE_RANK, RARE_COUNTRIES, RARE_MIN_LEN = 10000, 2, 4
RARE_EN_ZIPF, RARE_OTHER_ZIPF = 2.5, 3.5
STOP_LANGUAGES = ("de", "es", "fr", "it", "pt", "nl", "sv", "pl", "tr", "id", "ms", "da", "nb", "fi", "ro", "cs",
                  "hu", "ca", "fil", "vi")
# a top-HOME_RANK name of a country is not stoplisted by that country's language (`kurz`, `ridzuan`, `nowicki` are
# frequent in German, Malay, Polish text because they are frequent names there)
HOME_RANK = 1000
HOME_LANGUAGES = {"DE": "de", "AT": "de", "CH": "de", "ES": "es", "MX": "es", "AR": "es", "CO": "es", "CL": "es",
                  "PE": "es", "FR": "fr", "BE": "fr", "IT": "it", "PT": "pt", "BR": "pt", "NL": "nl", "SE": "sv",
                  "PL": "pl", "TR": "tr", "ID": "id", "MY": "ms", "BN": "ms", "DK": "da", "NO": "nb", "FI": "fi",
                  "RO": "ro", "CZ": "cs", "HU": "hu", "PH": "fil", "VN": "vi"}
# the identifier policy (`_identifier_names`): a name of any country's top IDENT_RANK, unless ordinary vocabulary
IDENT_RANK, IDENT_MIN_LEN = 10000, 2
IDENT_LANGUAGES = ("en", "de", "fr", "es")  # the languages of call-recorder and CRM export vocabulary
IDENT_HOMES = ("US", "GB", "CA", "AU", "IE", "NZ", "DE", "AT", "CH", "FR", "BE", "ES", "MX", "AR", "CO", "CL", "PE")
IDENT_WORD_ZIPF = 3.0  # a frequent word of those languages, unless a top name where they are spoken:
IDENT_HOME_RANKS = ((5.0, 300), (4.0, 500), (0.0, 1000))  # the more frequent the word, the higher it must rank
IDENT_WEAK_ZIPF, IDENT_WEAK_RANK = 2.0, 1000  # an English word that is no country's top-1000 name (`cust`, `csv`)
IDENT_FUNCTION_WORDS = 100  # the most frequent English words (`to`, `in`, `new`, `will`) are never names
TABLE_VERSION = 6

_LATIN = re.compile(r"^[A-Za-z][A-Za-z'\-]*$")
# the country table's Latin names may carry diacritics ("Müller", "José", "Lefèvre"): the European packs' names
_LATIN_EXT = re.compile(
    r"^[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f][A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f'\-]*$"
)
_HAN = re.compile(r"^[\u4e00-\u9fff]{2,3}$")
_DEVA = re.compile(r"^[\u0900-\u097F]+$")


def _dataset_version() -> str:
    try:
        return importlib.metadata.version("names-dataset")
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def _wordfreq_version() -> str:
    try:
        return importlib.metadata.version("wordfreq")
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def fingerprint() -> str:
    """What decides the table's content (no loading): dataset version and derivation constants."""
    key = json.dumps(
        [TABLE_VERSION, _dataset_version(), COUNTRIES, MAX_RANK, COMMON_ZIPF, NAME_FIRST_RANK, NAME_FIRST_ZIPF,
         RARE_RANK, RARE_COUNTRIES, RARE_MIN_LEN, RARE_EN_ZIPF, RARE_OTHER_ZIPF, STOP_LANGUAGES, HOME_RANK,
         sorted(HOME_LANGUAGES.items()), _wordfreq_version(), IDENT_RANK, IDENT_MIN_LEN, IDENT_LANGUAGES,
         IDENT_HOMES, IDENT_WORD_ZIPF, IDENT_HOME_RANKS, IDENT_WEAK_ZIPF, IDENT_WEAK_RANK, IDENT_FUNCTION_WORDS]
    )
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def cache_path() -> Path:
    base = Path(os.environ.get("VAK_CACHE") or Path.home() / ".cache" / "vak_pipeline")
    return base / f"names-{fingerprint()}.json"


def derive() -> dict:
    """Build the compact table from names-dataset (heavy: run it in a child process, see `_load`)."""
    import names_dataset  # lazy: only the deriving child imports it

    root = Path(names_dataset.__file__).parent / "v3"
    out: dict = {"fingerprint": fingerprint(), "first": {}, "last": {}, "han_given": {}, "han_family": {}, "deva": {}}
    spread: dict[str, int] = {}  # lower-cased Latin name -> countries where it ranks in the top RARE_RANK
    homes: dict[str, set[str]] = {}  # ... -> languages of the countries where it is a top-HOME_RANK name
    ident_best: dict[str, list[int]] = {}  # lower-cased Latin name -> [best rank anywhere, best rank in IDENT_HOMES]
    for kind in ("first", "last"):
        with gzip.open(root / f"{kind}_names.pkl.gz", "rb") as fh:
            table = pickle.load(fh)
        for name, info in table.items():
            if len(name) >= IDENT_MIN_LEN and name.isascii() and name.isalpha():
                _keep_best(ident_best, name.lower(), info.get("rank") or {})
            if len(name) >= RARE_MIN_LEN and _LATIN.match(name) and name.isalpha():
                all_ranks = info.get("rank") or {}
                n = sum(1 for r in all_ranks.values() if r and r <= RARE_RANK)
                if n:
                    spread[name.lower()] = max(n, spread.get(name.lower(), 0))
                    home = {HOME_LANGUAGES[c] for c, r in all_ranks.items() if r and r <= HOME_RANK
                            and c in HOME_LANGUAGES}
                    if home:
                        homes.setdefault(name.lower(), set()).update(home)
            ranks = {c: r for c, r in (info.get("rank") or {}).items() if c in COUNTRIES and r and r <= MAX_RANK}
            if not ranks:
                continue
            if _LATIN_EXT.match(name):
                key = name.lower()
                slot = out[kind].setdefault(key, {})
                for c, r in ranks.items():
                    slot[c] = min(r, slot.get(c, r))
            elif _HAN.match(name):
                best = min(ranks.values())
                dest = out["han_given" if kind == "first" else "han_family"]
                dest[name] = min(best, dest.get(name, best))
            elif _DEVA.match(name) and "IN" in ranks:
                out["deva"][name] = min(ranks["IN"], out["deva"].get(name, ranks["IN"]))
        del table
    out["common"] = sorted(_common_words(out["first"], out["last"]))
    out["english"] = sorted(_english_words(out["first"], out["last"]))
    out["rare"] = sorted(_rare_names(spread, homes))
    ident, ident_words = _identifier_names(ident_best)
    out["ident"], out["ident_words"] = sorted(ident), sorted(ident_words)
    return out


def _keep_best(best: dict[str, list[int]], key: str, ranks: dict[str, int]) -> None:
    top = [r for r in ranks.values() if r]
    if not top:
        return
    home = [r for c, r in ranks.items() if r and c in IDENT_HOMES]
    slot = best.setdefault(key, [min(top), min(home, default=10**9)])
    slot[0], slot[1] = min(slot[0], min(top)), min(slot[1], min(home, default=10**9))


def _identifier_names(best: dict[str, list[int]]) -> tuple[set[str], set[str]]:
    """(names, ordinary words that are names somewhere) for identifiers: file and folder names, speaker ids,
    record ids. Why a policy of its own: an identifier is a few tokens with no sentence around them, and an
    over-cleaned token only costs readability, while a missed one publishes a caller's name. So every token that
    any names-dataset country ranks in its top IDENT_RANK as a first or last name is a name, unless it is
    ordinary identifier vocabulary. That vocabulary is derived, not listed by hand:
    - a word of wordfreq's IDENT_LANGUAGES (the languages of call-recorder and CRM exports) at Zipf >=
      IDENT_WORD_ZIPF that no country where they are spoken (IDENT_HOMES) ranks high as a name (in its top 300
      for a word at Zipf >= 5, top 500 from Zipf 4, top 1000 below: IDENT_HOME_RANKS): `order`, `billing`,
      `march`, `call`, `sales`, `soporte`, `english` stay; `long`, `young`, `rose`, `park`, `lee`, `fox`, `bird`,
      `klein`, `kurz` (top names of the US, GB, DE, AT) are names;
    - an English word at Zipf >= IDENT_WEAK_ZIPF that no country ranks in its top IDENT_WEAK_RANK (`cust`, `csv`:
      noise of the name lists);
    - the IDENT_FUNCTION_WORDS most frequent English words (`to`, `in`, `new`, `will`);
    - month and weekday names and their abbreviations (`calendar`, in the C locale).
    The second list holds the vocabulary words that are names somewhere: such a word beside a name is taken as
    part of it (`joao-sales`, `april-young`), alone it stays (`billing-march.wav`)."""
    import calendar

    import wordfreq

    freq = {lang: wordfreq.get_frequency_dict(lang) for lang in IDENT_LANGUAGES}
    word_min, weak_min = 10 ** (IDENT_WORD_ZIPF - 9), 10 ** (IDENT_WEAK_ZIPF - 9)
    fixed = set(wordfreq.top_n_list("en", IDENT_FUNCTION_WORDS))
    fixed |= {m.lower() for m in (*calendar.month_name, *calendar.month_abbr, *calendar.day_name,
                                  *calendar.day_abbr) if m}
    names, words = set(), set()
    for t, (anywhere, home) in best.items():
        if anywhere > IDENT_RANK:
            continue
        f = max(freq[lang].get(t, 0.0) for lang in IDENT_LANGUAGES)
        home_rank = next((r for z, r in IDENT_HOME_RANKS if f >= 10 ** (z - 9)), IDENT_HOME_RANKS[-1][1])
        word = (t in fixed or (f >= word_min and home > home_rank)
                or (anywhere > IDENT_WEAK_RANK and freq["en"].get(t, 0.0) >= weak_min))
        (words if word else names).add(t)
    return names, words


def _rare_names(spread: dict[str, int], homes: dict[str, set[str]]) -> set[str]:
    """Names of many countries that no word list knows as a word (`raghunathan`, `venkataraman`): a lone token
    of an identifier (`raghunathan.wav`) is a name when it is one of these. The stoplist is every word of
    Webster's 2nd, English words from Zipf RARE_EN_ZIPF, and words of the STOP_LANGUAGES from RARE_OTHER_ZIPF
    (`soporte`, `kunde`, `telefon`, `janvier` are names somewhere, and words of a file name elsewhere), except
    in a language of a country where the token is a top-HOME_RANK name (`homes`)."""
    import wordfreq
    from english_words import get_english_words_set

    web2 = get_english_words_set(["web2"], lower=True, alpha=True)
    en = wordfreq.get_frequency_dict("en")
    others = {lang: wordfreq.get_frequency_dict(lang) for lang in STOP_LANGUAGES}
    en_min, other_min = 10 ** (RARE_EN_ZIPF - 9), 10 ** (RARE_OTHER_ZIPF - 9)
    return {t for t, n in spread.items()
            if n >= RARE_COUNTRIES and t not in web2 and en.get(t, 0.0) < en_min
            and all(d.get(t, 0.0) < other_min for lang, d in others.items() if lang not in homes.get(t, ()))}


def _common_words(first: dict[str, dict[str, int]], last: dict[str, dict[str, int]]) -> set[str]:
    """Name tokens that are also frequent ordinary English words: lower-case in Webster's 2nd and at
    Zipf >= COMMON_ZIPF in wordfreq, except a top-ranked US/UK given name whose frequency is below
    NAME_FIRST_ZIPF (its frequency is the name's: "mary", "eric", "henry"; not "mark", "will", "bill")."""
    import wordfreq
    from english_words import get_english_words_set

    web2 = get_english_words_set(["web2"], lower=False, alpha=True)
    out = set()
    for t in set(first) | set(last):
        if t not in web2:
            continue
        z = wordfreq.zipf_frequency(t, "en")
        if z < COMMON_ZIPF:
            continue
        ranks = first.get(t, {})
        if z < NAME_FIRST_ZIPF and min(ranks.get("US", MAX_RANK), ranks.get("GB", MAX_RANK)) <= NAME_FIRST_RANK:
            continue
        out.add(t)
    return out


def _english_words(first: dict, last: dict) -> set[str]:
    """Frequent English words that are not names: an unknown word after "it's" or before "ji" is a name
    only if it is not one of these. wordfreq's top 40k, minus words only the name lists know."""
    import wordfreq
    from english_words import get_english_words_set

    web2 = get_english_words_set(["web2"], lower=False, alpha=True)
    return {
        w
        for w in wordfreq.top_n_list("en", 40000)
        if w.isascii() and w.isalpha() and (w in web2 or (w not in first and w not in last))
    }


@dataclass(frozen=True, eq=False)  # hashed by identity: `tokens` is memoised per lexicon
class NameLexicon:
    """Lower-cased Latin first/last names with per-country ranks, Han and Devanagari names, common words."""

    first: dict[str, dict[str, int]] = field(default_factory=dict)
    last: dict[str, dict[str, int]] = field(default_factory=dict)
    han_given: dict[str, int] = field(default_factory=dict)
    han_family: dict[str, int] = field(default_factory=dict)
    deva: dict[str, int] = field(default_factory=dict)
    common: frozenset[str] = frozenset()
    english: frozenset[str] = frozenset()
    rare: frozenset[str] = frozenset()  # rare Latin names of many countries, for identifiers (`_rare_names`)
    ident: frozenset[str] = frozenset()  # names for identifiers, high recall (`_identifier_names`)
    ident_words: frozenset[str] = frozenset()  # identifier vocabulary that is a name somewhere (ditto)

    @property
    def empty(self) -> bool:
        return not (self.first or self.last)

    @functools.lru_cache(maxsize=16)  # noqa: B019 - one lexicon per process, a few packs
    def tokens(
        self, primary: tuple[str, ...], secondary: tuple[str, ...], primary_rank: int, secondary_rank: int
    ) -> tuple[frozenset[str], frozenset[str]]:
        """(first names, last names) for a pack: top `primary_rank` in its own countries, fewer elsewhere."""

        def pick(table: dict[str, dict[str, int]]) -> frozenset[str]:
            return frozenset(
                t
                for t, ranks in table.items()
                if any(ranks.get(c, MAX_RANK + 1) <= primary_rank for c in primary)
                or any(ranks.get(c, MAX_RANK + 1) <= secondary_rank for c in secondary)
            )

        return pick(self.first), pick(self.last)


def _from_json(data: dict) -> NameLexicon:
    return NameLexicon(
        data["first"],
        data["last"],
        data["han_given"],
        data["han_family"],
        data["deva"],
        frozenset(data["common"]),
        frozenset(data.get("english", ())),
        frozenset(data.get("rare", ())),
        frozenset(data.get("ident", ())),
        frozenset(data.get("ident_words", ())),
    )


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    os.replace(tmp, path)


@functools.lru_cache(maxsize=1)
def lexicon() -> NameLexicon:
    """The table for this process (memory cache), from the user cache or derived in a child process.

    Without names-dataset installed, an empty lexicon and one warning: names then rely on cues only.
    """
    path = cache_path()
    if path.exists():
        with open(path, encoding="utf-8") as fh:
            return _from_json(json.load(fh))
    try:
        proc = subprocess.run([sys.executable, "-m", __name__], check=True, capture_output=True, timeout=600)
        data = json.loads(proc.stdout)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError, ValueError) as exc:
        tail = (getattr(exc, "stderr", b"") or b"").decode(errors="replace")[-300:]
        log.warning(
            "person-name lexicon unavailable (are names-dataset, wordfreq and english-words installed?): "
            "%s; person names rely on cue phrases only",
            tail or type(exc).__name__,
        )
        return NameLexicon()
    try:
        _write(path, data)
    except OSError:  # a read-only home: the memory cache still serves this process
        log.info("could not cache the person-name lexicon under %s", path.parent)
    return _from_json(data)


if __name__ == "__main__":  # the deriving child: prints the table as JSON on stdout
    sys.stdout.write(json.dumps(derive(), ensure_ascii=False, sort_keys=True, separators=(",", ":")))
