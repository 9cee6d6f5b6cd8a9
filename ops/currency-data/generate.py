#!/usr/bin/env python3
"""Generate Tally's currency data from ISO 4217 and Unicode CLDR.

Run by hand, never at build time:

    pip install -r ops/currency-data/requirements.txt
    python3 ops/currency-data/generate.py            # as of today
    python3 ops/currency-data/generate.py --check    # exit 1 if the committed files are stale

Sources (see docs/currency-data.md for every rule):

- ISO 4217 List One, from the `iso4217` package (public domain): alphabetic code, numeric code,
  minor units and ISO's English name of every currency in use.
- Unicode CLDR, from the `babel` package (its CLDR data is under the Unicode License v3):
  symbols, names in English, Japanese and Chinese, the territories that use each currency on the
  as-of date, CLDR's minor units and cash rounding, territory names, and the currencies that have
  been retired.

Writes, deterministically (rows sorted by code, a fixed field order, one row per line):

- ops/currency-data/currencies.json            the file an operator edits and loads with
                                               `tally currency load`
- Sources/TallyMoney/CurrencyData.generated.swift  the same JSON, embedded in the binary
- ops/currency-data/LICENSE-UNICODE.txt        CLDR's licence, copied from babel

Regenerating without a change in the sources changes nothing: when only the "generated" date
would differ, the files are left as they are.
"""

import argparse
import datetime
import decimal
import json
import os
import sys
import unicodedata

try:
    import babel
    import iso4217
    from babel import Locale
    from babel.core import get_global
    from babel.localedata import locale_identifiers
except ImportError as error:  # pragma: no cover
    sys.exit(f"{error}; run: pip install -r ops/currency-data/requirements.txt")

FORMAT = 1
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
JSON_PATH = os.path.join(ROOT, "ops", "currency-data", "currencies.json")
SWIFT_PATH = os.path.join(ROOT, "Sources", "TallyMoney", "CurrencyData.generated.swift")
LICENSE_PATH = os.path.join(ROOT, "ops", "currency-data", "LICENSE-UNICODE.txt")

# The languages of the names: English, Japanese and Chinese (CLDR's `zh` is Simplified Chinese).
NAME_LANGUAGES = ("en", "ja", "zh")

# ---------------------------------------------------------------------------------------------
# Tally's own supplements. Nothing below comes from ISO 4217 or CLDR; each entry says why it is
# here, and docs/currency-data.md lists them.
# ---------------------------------------------------------------------------------------------

# Symbols people write and search by that CLDR does not record. Added to `symbols` (the search
# list) only, never to `symbol` or `narrow_symbol`.
TALLY_SYMBOLS = {
    # Swiss coins and price tags read "Fr." (German, Italian, Romansh) or "fr." (French); "SFr." is
    # the common abbreviation abroad. CLDR gives only "CHF" in every Swiss locale.
    "CHF": ["Fr.", "Fr", "fr.", "SFr."],
}

# Changes in which currency a territory uses that are newer than babel's CLDR. Each applies from
# its date on: `old` stops being used in the territory and `new` starts. The generator fails when
# CLDR names a currency for today that ISO 4217 List One no longer has and no entry here explains
# it, and warns when an entry has become unnecessary because CLDR caught up.
TALLY_TERRITORY_CHANGES = [
    {
        "territory": "BG", "old": "BGN", "new": "EUR", "from": datetime.date(2026, 1, 1),
        "why": "Bulgaria adopted the euro on 2026-01-01: ISO 4217 (table of 2026-01-01) lists Bulgaria "
               "under EUR and no longer lists BGN; CLDR 47 predates the change.",
    },
]

# CLDR region codes that are not countries or territories a person lives in: ISO 3166 user-assigned
# codes (AA, QM-QZ, XA-XZ but XK for Kosovo, ZZ) and the exceptionally reserved EU, EZ and UN.
def is_country(code):
    if len(code) != 2 or not code.isalpha() or not code.isupper():
        return False
    if code in ("EU", "EZ", "UN", "AA", "ZZ"):
        return False
    if code[0] == "Q" and code[1] >= "M":
        return False
    if code[0] == "X" and code != "XK":
        return False
    return True


# Invisible characters some CLDR symbols carry, which nobody types into a search box: marks that
# control bidirectional layout (Arabic and Hebrew locales) and zero-width characters (pt_CV writes
# the escudo's symbol as a zero-width space, since the cifrão goes between the digits).
INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"
                                   "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))


def search_forms(symbol):
    """The forms of a symbol a search should match: as CLDR writes it without invisible characters,
    with plain spaces for no-break ones, its NFKC compatibility form (full-width ￥ is ¥) and, for
    an abbreviation that ends in a full stop (kr., Fr.), the form without it."""
    visible = symbol.translate(INVISIBLE).strip()
    spaced = visible.replace("\u00a0", " ").replace("\u202f", " ")
    forms = [visible, spaced, unicodedata.normalize("NFKC", spaced)]
    for form in list(forms):
        if len(form) > 1 and form.endswith(".") and form[-2] != ".":
            forms.append(form[:-1])
    seen = []
    for form in forms:
        if form and form not in seen:
            seen.append(form)
    return seen


def decimal_text(value):
    """A positive Decimal as a plain decimal string without trailing zeros: 0.05, 0.5, 1."""
    return format(value.normalize(), "f")


def fail(message):
    sys.exit(f"generate.py: {message}")


def warn(message):
    print(f"generate.py: warning: {message}", file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# Reading the sources
# ---------------------------------------------------------------------------------------------

def read_iso():
    """ISO 4217 List One: {code: {numeric, minor_units, name}}, and the codes whose
    minor units are "N.A." (precious metals, units of account, testing and no-currency codes)."""
    active, not_applicable = {}, []
    for code, entry in iso4217.raw_table.items():
        if not code or entry["CcyNbr"] is None:
            continue  # "No universal currency" rows (Antarctica, Palestine, South Georgia)
        minor = (entry["CcyMnrUnts"] or "").strip()
        if not minor.isdigit():
            not_applicable.append(code)
            continue
        active[code] = {
            "numeric": "%03d" % entry["CcyNbr"],
            "minor_units": int(minor),
            "name": entry["CcyNm"],
        }
    return active, sorted(not_applicable)


def cldr_fractions(code):
    """CLDR's (digits, rounding, cash digits, cash rounding) for a currency; DEFAULT when CLDR has
    no entry for it, as CLDR specifies."""
    fractions = get_global("currency_fractions")
    return fractions.get(code, fractions["DEFAULT"])


def territory_currencies_today(as_of, active_codes):
    """{territory: [currency codes in use as tender on as_of]} for every country-like territory
    CLDR knows, with TALLY_TERRITORY_CHANGES applied, and {territory: {code: from-date}}."""
    history = get_global("territory_currencies")
    today, since = {}, {}
    for territory, entries in history.items():
        if not is_country(territory):
            continue
        codes, started = [], {}
        for code, start, end, tender in entries:
            if not tender:
                continue
            start_date = datetime.date(*start) if start else datetime.date.min
            end_date = datetime.date(*end) if end else None
            if start_date <= as_of and (end_date is None or as_of <= end_date):
                if code not in codes:
                    codes.append(code)
                started[code] = start_date
        if codes:
            today[territory] = codes
            since[territory] = started

    for change in TALLY_TERRITORY_CHANGES:
        territory, old, new, start = change["territory"], change["old"], change["new"], change["from"]
        codes = today.get(territory, [])
        if as_of < start:
            continue
        if old not in codes:
            warn(f"TALLY_TERRITORY_CHANGES entry {territory} {old}->{new} is no longer needed: "
                 f"CLDR already has {territory} using {codes}; remove it")
            continue
        codes = [new if code == old else code for code in codes]
        today[territory] = list(dict.fromkeys(codes))
        since[territory][new] = start

    for territory, codes in sorted(today.items()):
        for code in codes:
            if code not in active_codes:
                fail(f"CLDR says {territory} uses {code} on {as_of}, but ISO 4217 List One (published "
                     f"{iso4217.__published__}) does not have {code}. Find out what replaced it and add an "
                     f"entry to TALLY_TERRITORY_CHANGES (or choose an as-of date no older than the ISO table).")
    return today, since


def local_locales():
    """{territory: [Locale]} for every CLDR locale with a territory (de_CH, sv_SE, zh_Hans_CN)."""
    by_territory = {}
    for identifier in sorted(locale_identifiers()):
        locale = Locale.parse(identifier)
        if locale.territory and not locale.variant:
            by_territory.setdefault(locale.territory, []).append(locale)
    return by_territory


def home_locales(territory, locales):
    """The locales of a territory's main language, by CLDR's likely subtags (und_CN is zh_Hans_CN,
    und_PK is ur_Arab_PK; und_US is absent because und itself is en_Latn_US): zh_Hans_CN, ur_PK,
    en_US. All the territory's locales when none is in that language."""
    likely = get_global("likely_subtags")
    parts = (likely.get(f"und_{territory}") or likely["und"]).split("_")
    language, script = parts[0], (parts[1] if len(parts) > 2 else None)
    candidates = locales.get(territory, [])
    home = [locale for locale in candidates
            if locale.language == language and (locale.script is None or locale.script == script)]
    return home or candidates


def region_default(territory, codes, countries_of, since):
    """The currency "auto" picks for a territory that uses several: the territory's own (the one
    used in the fewest territories: BTN over INR, HTG and PAB over USD), then the one it has used
    longest (ILS over JOD in PS), then by code."""
    return sorted(codes, key=lambda code: (len(countries_of[code]), since[territory][code], code))[0]


# ---------------------------------------------------------------------------------------------
# Building the data
# ---------------------------------------------------------------------------------------------

def build(as_of):
    iso, not_applicable = read_iso()
    today, since = territory_currencies_today(as_of, set(iso))
    locales = local_locales()
    language_locales = {language: Locale.parse(language) for language in NAME_LANGUAGES}

    countries_of = {}
    for territory, codes in today.items():
        for code in codes:
            countries_of.setdefault(code, []).append(territory)

    # Retired: every currency CLDR records as legal tender in some territory at some time that is
    # not in ISO 4217 List One today (DEM, FRF, BGN, ...).
    ever_tender = {code for entries in get_global("territory_currencies").values()
                   for code, _, _, tender in entries if tender}
    retired = sorted(ever_tender - set(iso) - set(not_applicable))

    currencies = []
    for code in sorted(set(iso) | set(retired)):
        iso_entry = iso.get(code)
        digits, _, cash_digits, cash_increment = cldr_fractions(code)
        minor_units = iso_entry["minor_units"] if iso_entry else digits

        cash = decimal.Decimal(max(cash_increment, 1)).scaleb(-cash_digits)
        cash_rounding = decimal_text(cash) if cash > decimal.Decimal(1).scaleb(-minor_units) else None

        names = {}
        for language, locale in language_locales.items():
            name = locale.currencies.get(code)
            if name:
                names[language] = name
        if "en" not in names:
            if not iso_entry:
                fail(f"{code} has neither a CLDR English name nor an ISO name")
            names["en"] = iso_entry["name"]  # CLDR has no name yet (XAD): ISO's

        english = language_locales["en"]
        symbol = english.currency_symbols.get(code, code)

        countries = sorted(countries_of.get(code, [])) if iso_entry else []
        local_symbols, home_symbols = [], []
        for territory in countries:
            home = home_locales(territory, locales)
            for locale in locales.get(territory, []):
                local = locale.currency_symbols.get(code)
                if local:
                    local_symbols.append(local)
                    if locale in home:
                        home_symbols.append(local)

        # Narrow symbol: babel does not carry CLDR's alt="narrow" symbols, so Tally derives one
        # from CLDR's symbols: the shortest that the main-language locales of the currency's
        # territories write (in NFKC form, so full-width ￥ counts as ¥), the most common among
        # equals, then the first by code point; the English symbol when they give none.
        candidates = {}
        for local in home_symbols:
            form = unicodedata.normalize("NFKC", local.translate(INVISIBLE)).strip()
            if form:
                candidates[form] = candidates.get(form, 0) + 1
        narrow = min(candidates, key=lambda form: (len(form), -candidates[form], form)) if candidates else symbol

        symbols = []
        sources = [symbol, narrow]
        sources += sorted(set(local_symbols))
        sources += sorted({locale.currency_symbols[code] for locale in language_locales.values()
                           if code in locale.currency_symbols})
        sources += TALLY_SYMBOLS.get(code, [])
        for source in sources:
            for form in search_forms(source):
                if form not in symbols:
                    symbols.append(form)

        currencies.append({
            "code": code,
            "numeric": iso_entry["numeric"] if iso_entry else None,
            "minor_units": minor_units,
            "iso_minor_units": iso_entry["minor_units"] if iso_entry else None,
            "cldr_minor_units": digits,
            "cash_rounding": cash_rounding,
            "symbol": symbol,
            "narrow_symbol": narrow,
            "symbols": symbols,
            "names": names,
            "iso_name": iso_entry["name"] if iso_entry else None,
            "countries": countries,
            "retired": iso_entry is None,
        })

    for code in TALLY_SYMBOLS:
        if code not in iso:
            fail(f"TALLY_SYMBOLS names {code}, which is not an active ISO 4217 currency")

    territories = {}
    for territory in sorted(today):
        names = {}
        for language, locale in language_locales.items():
            name = locale.territories.get(territory)
            if name:
                names[language] = name
        if "en" not in names:
            fail(f"CLDR has no English name for territory {territory}")
        territories[territory] = names

    region_currency = {territory: region_default(territory, codes, countries_of, since)
                       for territory, codes in sorted(today.items())}

    cldr_version = get_global("cldr")["version"]
    data = {
        "format": FORMAT,
        "version": f"iso4217 {iso4217.__version__} + CLDR {cldr_version} (babel {babel.__version__})",
        "generated": as_of.isoformat(),
        "licence": (
            f"Symbols, names, territories, CLDR minor units and cash rounding: Unicode CLDR {cldr_version}, "
            "Copyright (c) Unicode, Inc., under the Unicode License v3 (SPDX Unicode-3.0; full text in "
            "ops/currency-data/LICENSE-UNICODE.txt and https://www.unicode.org/license.txt). "
            "Codes, numeric codes, ISO minor units and ISO names: ISO 4217 via the iso4217 package "
            "(public domain). Assembled by Tally's ops/currency-data/generate.py, which marks Tally's own "
            "additions (see docs/currency-data.md)."
        ),
        "currencies": currencies,
        "territories": territories,
        "region_currency": region_currency,
    }
    report = {
        "not_applicable": not_applicable,
        "multi": {t: (codes, region_currency[t]) for t, codes in sorted(today.items()) if len(codes) > 1},
    }
    return data, report


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------

def dump(value):
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def render_json(data):
    """The JSON text: top-level fields in a fixed order, one currency, territory or region per line."""
    lines = ["{"]
    for key in ("format", "version", "generated", "licence"):
        lines.append(f"  {dump(key)}: {dump(data[key])},")
    lines.append('  "currencies": [')
    rows = [f"    {dump(currency)}" for currency in data["currencies"]]
    lines.append(",\n".join(rows))
    lines.append("  ],")
    for key, last in (("territories", False), ("region_currency", True)):
        lines.append(f"  {dump(key)}: {{")
        rows = [f"    {dump(code)}: {dump(value)}" for code, value in data[key].items()]
        lines.append(",\n".join(rows))
        lines.append("  }" + ("" if last else ","))
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == data
    return text


def render_swift(json_text, licence_text, data):
    hashes = "#"
    while f'"""{hashes}' in json_text or f"\\{hashes}" in json_text:
        hashes += "#"
    notice = "\n".join(("// " + line).rstrip() for line in licence_text.strip().splitlines())
    return (
        "// GENERATED by ops/currency-data/generate.py: do not edit. Edit the generator or its\n"
        "// supplements and run it again (see docs/currency-data.md).\n"
        "//\n"
        f"// Sources: {data['version']}, as of {data['generated']}.\n"
        "// ISO 4217 codes, numeric codes, minor units and names come from the iso4217 package (public\n"
        "// domain). Symbols, names, territories, CLDR minor units and cash rounding come from Unicode\n"
        "// CLDR through babel, under this notice:\n"
        "//\n"
        f"{notice}\n"
        "\n"
        "/// The built-in currency data, the same JSON as ops/currency-data/currencies.json.\n"
        f"let currencyDataJSON = {hashes}\"\"\"\n"
        f"{json_text.rstrip(chr(10))}\n"
        f"\"\"\"{hashes}\n"
    )


def read(path):
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except FileNotFoundError:
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--date", type=datetime.date.fromisoformat, default=None,
                        help="the as-of date for which territories use which currency (default: today, UTC)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a committed file differs from what would be written")
    options = parser.parse_args()
    as_of = options.date or datetime.datetime.now(datetime.timezone.utc).date()

    data, report = build(as_of)

    # Keep the committed "generated" date when nothing else would change, so that regenerating
    # from the same sources gives no diff.
    existing = read(JSON_PATH)
    if existing and options.date is None:
        try:
            old = json.loads(existing)
            if {**old, "generated": data["generated"]} == data:
                data["generated"] = old["generated"]
        except ValueError:
            pass

    licence_text = read(os.path.join(os.path.dirname(babel.__file__), "locale-data", "LICENSE.unicode"))
    if not licence_text:
        fail("babel's locale-data/LICENSE.unicode is missing; cannot copy CLDR's licence")

    json_text = render_json(data)
    outputs = {
        JSON_PATH: json_text,
        SWIFT_PATH: render_swift(json_text, licence_text, data),
        LICENSE_PATH: licence_text,
    }
    stale = [path for path, text in outputs.items() if read(path) != text]
    if options.check:
        for path in stale:
            print(f"stale: {os.path.relpath(path, ROOT)}", file=sys.stderr)
        sys.exit(1 if stale else 0)
    for path in stale:
        with open(path, "w", encoding="utf-8", newline="\n") as file:
            file.write(outputs[path])

    active = [c for c in data["currencies"] if not c["retired"]]
    differing = [c["code"] for c in active if c["iso_minor_units"] != c["cldr_minor_units"]]
    print(f"{data['version']}, as of {data['generated']}")
    print(f"{len(active)} active and {len(data['currencies']) - len(active)} retired currencies, "
          f"{len(data['territories'])} territories, {len(data['region_currency'])} region defaults")
    print(f"left out (ISO minor units N.A.): {' '.join(report['not_applicable'])}")
    print(f"ISO and CLDR minor units differ: {' '.join(differing)}")
    for territory, (codes, chosen) in report["multi"].items():
        print(f"{territory} uses {' '.join(codes)}; auto picks {chosen}")
    for path in stale:
        print(f"wrote {os.path.relpath(path, ROOT)}")
    if not stale:
        print("no changes")


if __name__ == "__main__":
    main()
