# ruff: noqa: E501  (template tables read better unwrapped)
"""Builds pii_eu.jsonl: support-chat turns for the European packs (nl-NL, de-DE, de-AT, sv-SE, fr-FR,
es-ES) with gold PII spans and a gold language per turn, for bench_locales.py.

Written by a different method than the recognizers: the templates, name lists, street lists and
phrasings below are this file's own (not the pack files' cue lists), check digits are computed here
with small implementations of the published algorithms (not python-stdnum), and each pack gets
code-switched turns (an English sentence in a Dutch chat, English words inside a German one), short
turns whose language is the conversation's, and business numbers that must stay (orders, invoices,
amounts, dates).

    python bench/data/make_pii_eu.py   # rewrites bench/data/pii_eu.jsonl (seeded, deterministic)
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from make_pii_labelled import iban  # the ISO 13616 check digits, as the labelled set writes them

OUT = Path(__file__).with_name("pii_eu.jsonl")
rng = random.Random(20261201)
PER_PACK = 64

# ------------------------------------------------------------------ check digits (own implementations)


def bsn() -> str:
    while True:
        d = [rng.randint(1, 9)] + [rng.randint(0, 9) for _ in range(7)]
        s = sum(x * w for x, w in zip(d, range(9, 1, -1), strict=True))
        c = s % 11
        if c < 10:
            return "".join(map(str, d + [c]))


def steuer_id() -> str:
    while True:
        digits = rng.sample(range(10), 9)
        if digits[0] == 0:
            continue
        rep = rng.choice(digits[1:])
        body = digits + [rep]
        head, tail = body[:1], body[1:]
        rng.shuffle(tail)
        body = head + tail
        product = 10
        for x in body:
            s = (x + product) % 10 or 10
            product = (s * 2) % 11
        check = (11 - product) % 10
        return "".join(map(str, body)) + str(check)


def at_vnr() -> str:
    while True:
        serial = f"{rng.randint(100, 999)}"
        birth = f"{rng.randint(1, 28):02d}{rng.randint(1, 12):02d}{rng.randint(50, 99):02d}"
        digits = [int(c) for c in serial + "0" + birth]
        w = [3, 7, 9, 0, 5, 8, 4, 2, 1, 6]
        c = sum(a * b for a, b in zip(digits, w, strict=True)) % 11
        if c < 10:
            return serial + str(c) + birth


def luhn_digit(base: str) -> str:
    s = 0
    for i, ch in enumerate(reversed(base)):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        s += d - 9 if d > 9 else d
    return str((10 - s % 10) % 10)


def personnummer() -> str:
    base = f"{rng.randint(50, 99):02d}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}{rng.randint(100, 999)}"
    return f"{base[:6]}-{base[6:]}{luhn_digit(base)}"


def nir() -> str:
    dept = rng.choice([f"{x:02d}" for x in range(1, 96) if x != 20])
    body = f"{rng.randint(1, 2)}{rng.randint(50, 99):02d}{rng.randint(1, 12):02d}{dept}{rng.randint(1, 990):03d}{rng.randint(1, 999):03d}"
    key = 97 - int(body) % 97
    return f"{body[0]} {body[1:3]} {body[3:5]} {body[5:7]} {body[7:10]} {body[10:13]} {key:02d}"


_DNI = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni() -> str:
    n = rng.randint(10000000, 99999999)
    return f"{n}{_DNI[n % 23]}"


def nie() -> str:
    p = rng.randint(0, 2)
    n = rng.randint(1000000, 9999999)
    return f"{'XYZ'[p]}{n}{_DNI[int(f'{p}{n}') % 23]}"


def es_bban() -> str:
    """Bank, branch, two national check digits (weights 1,2,4,8,5,10,9,7,3,6 mod 11), account."""
    w = [1, 2, 4, 8, 5, 10, 9, 7, 3, 6]

    def dc(ten: str) -> str:
        d = 11 - sum(int(c) * x for c, x in zip(ten, w, strict=True)) % 11
        return str({11: 0, 10: 1}.get(d, d))

    bank, account = digits(8), digits(10)
    return bank + dc("00" + bank) + dc(account) + account


def digits(n: int) -> str:
    return "".join(str(rng.randint(0, 9)) for _ in range(n))


# ------------------------------------------------------------------ per-language vocabulary (own lists)

LANG = {
    "nl-NL": dict(
        lang="nl", first=["Sanne", "Joost", "Femke", "Bram", "Lotte", "Maarten", "Ingrid", "Wouter", "Eline", "Kees"],
        last=["de Vries", "Jansen", "van Dijk", "Bakker", "Visser", "Smit", "Meijer", "de Boer", "Mulder", "Bos"],
        streets=["Prinsengracht", "Kerkstraat", "Dorpsweg", "Stationsplein", "Molenlaan", "Havenkade"],
        cities=["Utrecht", "Leiden", "Zwolle", "Haarlem", "Delft"],
        pc=lambda: f"{rng.randint(1000, 9999)} {rng.choice('ABCDEFGHJKLMNPRTVWXZ')}{rng.choice('ABCDEFGHJKLMNPRTVWXZ')}",
        phone=lambda: rng.choice([f"06 {rng.randint(1, 5)}{digits(7)}", f"06-{rng.randint(1, 5)}{digits(7)}", f"+31 6 {rng.randint(1, 5)}{digits(7)}"]),
        nid=("nl_bsn", bsn), iban=lambda: iban("NL", "ABNA" + digits(10)),
        words="nul een twee drie vier vijf zes zeven acht negen".split(),
        t_name=["Goedemiddag, u spreekt met {N}.", "Hallo, mijn naam is {N} en ik bel over mijn abonnement.", "Met {N}, ik had gisteren al gemaild."],
        t_phone=["Je kunt me bereiken op {P}, liefst na vijf uur.", "Mijn telefoonnummer is {P}.", "Bel me maar terug op {P} alsjeblieft."],
        t_id=["Voor de belastingdienst: mijn BSN is {I}.", "Het burgerservicenummer van mijn moeder is {I}."],
        t_iban=["Het geld mag terug naar {B}, op mijn naam.", "Mijn rekeningnummer is {B}."],
        t_addr=["Ik woon op {S} {H}, {PC} {C}.", "Stuur het pakket naar {S} {H}, {PC} {C} graag."],
        t_pc=["De postcode is {PC}, huisnummer {H}.", "Klopt het dat de postcode {PC} is?"],
        t_spoken=["mijn nummer is {W}"],
        t_biz=["Mijn bestelling {O} is nog steeds niet binnen.", "Op factuur {O} staat een bedrag van € {A} te veel.", "Het ordernummer is {O}, besteld op {D}.", "Ticketnummer {O}, ik wacht al drie dagen."],
        t_plain=["Ik heb de router opnieuw opgestart maar het lampje blijft rood knipperen.", "Kunnen jullie de creditnota vandaag nog versturen?", "De levering kwam te laat en de doos was beschadigd.", "Hoe lang duurt het voordat de terugbetaling zichtbaar is?"],
        t_en=["Sorry, can I continue in English? My Dutch is not great.", "Okay, so the package never arrived at my place.", "Could you please send me the invoice again by email?"],
        t_mixed=["Ik heb het already betaald maar de payment staat nog open.", "De app crasht steeds als ik inlog, echt super frustrating."],
        t_short=["Oké, dank je.", "Top!", "Prima"],
    ),
    "de-DE": dict(
        lang="de", first=["Jonas", "Lea", "Felix", "Hannah", "Lukas", "Miriam", "Tobias", "Katrin", "Stefan", "Anja"],
        last=["Becker", "Schulz", "Hoffmann", "Wagner", "Krüger", "Neumann", "Zimmermann", "Braun", "Hartmann", "Lange"],
        streets=["Lindenstraße", "Bahnhofstraße", "Gartenweg", "Schillerplatz", "Rosenallee", "Am Mühlenweg"],
        cities=["Leipzig", "Bremen", "Kassel", "Mainz", "Freiburg"],
        pc=lambda: f"{rng.randint(10, 99)}{digits(3)}",
        phone=lambda: rng.choice([f"0171 {digits(7)}", f"0151 {digits(8)}", f"+49 170 {digits(7)}"]),
        nid=("de_idnr", steuer_id), iban=lambda: iban("DE", digits(18)),
        words="null eins zwei drei vier fünf sechs sieben acht neun".split(),
        t_name=["Guten Tag, hier spricht {N}.", "Hallo, mein Name ist {N}, ich rufe wegen meines Vertrags an.", "Ich heiße {N} und habe eine Frage."],
        t_phone=["Sie erreichen mich unter {P}.", "Meine Handynummer lautet {P}.", "Rufen Sie mich bitte unter {P} zurück."],
        t_id=["Meine Steuer-ID ist {I}.", "Die Steueridentifikationsnummer lautet {I}."],
        t_iban=["Bitte überweisen Sie auf {B}.", "Meine IBAN ist {B}."],
        t_addr=["Ich wohne in der {S} {H}, {PC} {C}.", "Die Lieferadresse ist {S} {H}, {PC} {C}."],
        t_pc=["Die Postleitzahl ist {PC}.", "PLZ {PC}, das ist in {C}."],
        t_spoken=["meine nummer ist {W}"],
        t_biz=["Meine Bestellnummer ist {O}.", "Auf der Rechnung {O} steht ein Betrag von {A} Euro.", "Die Auftragsnummer lautet {O}, bestellt am {D}.", "Vorgangsnummer {O}, bitte prüfen."],
        t_plain=["Das Paket ist leider beschädigt angekommen.", "Ich möchte meinen Vertrag zum Monatsende kündigen.", "Die Rückerstattung ist noch nicht auf meinem Konto.", "Der Drucker zeigt immer wieder denselben Fehler an."],
        t_en=["Sorry, could we switch to English, please?", "I already sent the screenshot yesterday.", "Thanks, that solves the problem for now."],
        t_mixed=["Das Update hat leider nicht funktioniert, the app still crashes beim Start.", "Ich habe das Ticket schon gestern eröffnet, aber noch kein Feedback bekommen."],
        t_short=["Okay, danke.", "Alles klar.", "Super"],
    ),
    "de-AT": dict(
        lang="de", first=["Florian", "Johanna", "Matthias", "Theresa", "Lukas", "Verena", "Andreas", "Magdalena", "Christoph", "Julia"],
        last=["Gruber", "Huber", "Bauer", "Wagner", "Pichler", "Steiner", "Moser", "Mayer", "Hofer", "Leitner"],
        streets=["Mariahilfer Straße", "Hauptplatz", "Kirchengasse", "Lindengasse", "Bahnhofstraße"],
        cities=["Wien", "Graz", "Linz", "Salzburg", "Innsbruck"],
        pc=lambda: f"{rng.randint(1010, 9999)}",
        phone=lambda: rng.choice([f"0664 {digits(7)}", f"0676 {digits(7)}", f"+43 660 {digits(7)}"]),
        nid=("at_vnr", at_vnr), iban=lambda: iban("AT", digits(16)),
        words="null eins zwei drei vier fünf sechs sieben acht neun".split(),
        t_name=["Grüß Gott, hier spricht {N}.", "Servus, mein Name ist {N}.", "Ich heiße {N} und habe ein Problem mit der Rechnung."],
        t_phone=["Sie erreichen mich unter {P}.", "Meine Telefonnummer ist {P}.", "Bitte rufen Sie mich unter {P} an."],
        t_id=["Meine Sozialversicherungsnummer ist {I}.", "Die Versicherungsnummer meiner Tochter lautet {I}."],
        t_iban=["Bitte auf {B} zurücküberweisen.", "Meine IBAN lautet {B}."],
        t_addr=["Ich wohne in der {S} {H}, {PC} {C}.", "Schicken Sie es an {S} {H}, {PC} {C}."],
        t_pc=["Die Postleitzahl ist {PC}.", "PLZ {PC}, also {C}."],
        t_spoken=["meine nummer ist {W}"],
        t_biz=["Die Bestellnummer ist {O}.", "Auf der Rechnung {O} stehen {A} Euro.", "Kundennummer {O}, seit {D} offen.", "Vorgang {O} ist immer noch nicht erledigt."],
        t_plain=["Die Lieferung ist schon wieder nicht gekommen.", "Ich hätte gern eine Gutschrift für den Ausfall.", "Der Techniker war da, aber das Internet geht noch immer nicht.", "Können Sie mir sagen, wann das Paket zugestellt wird?"],
        t_en=["Sorry, is it possible to continue in English?", "I have been waiting for two weeks now.", "Great, thank you for your help."],
        t_mixed=["Das Login funktioniert nicht, I always get an error message.", "Ich habe den Support schon dreimal kontaktiert."],
        t_short=["Passt, danke.", "Ok danke", "Super"],
    ),
    "sv-SE": dict(
        lang="sv", first=["Erik", "Karin", "Johan", "Elin", "Anders", "Maja", "Oskar", "Linnea", "Gustav", "Sofia"],
        last=["Lindqvist", "Andersson", "Johansson", "Karlsson", "Nilsson", "Eriksson", "Larsson", "Olsson", "Persson", "Berg"],
        streets=["Storgatan", "Kungsgatan", "Skolvägen", "Björkvägen", "Drottninggatan", "Ringvägen"],
        cities=["Uppsala", "Malmö", "Örebro", "Umeå", "Lund"],
        pc=lambda: f"{rng.randint(100, 989)} {digits(2)}",
        phone=lambda: rng.choice([f"070-{digits(3)} {digits(2)} {digits(2)}", f"073 {digits(3)} {digits(2)} {digits(2)}", f"+46 70 {digits(3)} {digits(2)} {digits(2)}"]),
        nid=("se_personnummer", personnummer), iban=lambda: iban("SE", digits(20)),
        words="noll ett två tre fyra fem sex sju åtta nio".split(),
        t_name=["Hej, det här är {N}.", "Hej, jag heter {N} och ringer om min faktura.", "Mitt namn är {N}."],
        t_phone=["Du når mig på {P}.", "Mitt mobilnummer är {P}.", "Ring mig gärna på {P} efter lunch."],
        t_id=["Mitt personnummer är {I}.", "Personnumret är {I}."],
        t_iban=["Pengarna kan skickas till {B}.", "Mitt IBAN är {B}."],
        t_addr=["Jag bor på {S} {H}, {PC} {C}.", "Leveransadressen är {S} {H}, {PC} {C}."],
        t_pc=["Postnumret är {PC}.", "Postnummer {PC} i {C}."],
        t_spoken=["mitt nummer är {W}"],
        t_biz=["Mitt ordernummer är {O}.", "På faktura {O} står det {A} kronor.", "Ärendenummer {O}, öppnat {D}.", "Beställning {O} har inte kommit."],
        t_plain=["Paketet kom aldrig fram till utlämningsstället.", "Jag vill säga upp mitt abonnemang.", "Appen loggar ut mig hela tiden.", "När kommer återbetalningen på mitt konto?"],
        t_en=["Sorry, can we do this in English instead?", "I never received the confirmation email.", "Thank you, that was really helpful."],
        t_mixed=["Jag har redan gjort en reset men det funkar fortfarande inte.", "Appen kraschar varje gång jag öppnar den, really annoying."],
        t_short=["Okej, tack.", "Tack!", "Perfekt"],
    ),
    "fr-FR": dict(
        lang="fr", first=["Camille", "Julien", "Élodie", "Thomas", "Manon", "Nicolas", "Chloé", "Antoine", "Léa", "Mathieu"],
        last=["Martin", "Bernard", "Dubois", "Laurent", "Moreau", "Lefèvre", "Roux", "Fournier", "Girard", "Bonnet"],
        streets=["rue Victor Hugo", "avenue Jean Jaurès", "boulevard Voltaire", "rue des Lilas", "place de la République", "chemin des Vignes"],
        cities=["Lyon", "Nantes", "Lille", "Rennes", "Toulouse"],
        pc=lambda: f"{rng.randint(10, 95):02d}{digits(3)}",
        phone=lambda: rng.choice([f"06 {digits(2)} {digits(2)} {digits(2)} {digits(2)}", f"07 {rng.randint(3, 9)}{digits(1)} {digits(2)} {digits(2)} {digits(2)}", f"+33 6 {digits(2)} {digits(2)} {digits(2)} {digits(2)}"]),
        nid=("fr_nir", nir), iban=lambda: iban("FR", digits(10) + digits(11) + digits(2)),
        words="zéro un deux trois quatre cinq six sept huit neuf".split(),
        t_name=["Bonjour, je m'appelle {N}.", "Bonjour, ici {N}, je vous appelle pour ma commande.", "Mon nom est {N}."],
        t_phone=["Vous pouvez me joindre au {P}.", "Mon numéro de portable est le {P}.", "Rappelez-moi au {P} s'il vous plaît."],
        t_id=["Mon numéro de sécurité sociale est le {I}.", "Le NIR de mon fils est {I}."],
        t_iban=["Vous pouvez rembourser sur {B}.", "Mon IBAN est {B}."],
        t_addr=["J'habite au {H} {S}, {PC} {C}.", "L'adresse de livraison est {H} {S}, {PC} {C}."],
        t_pc=["Le code postal est {PC}.", "Code postal {PC}, à {C}."],
        t_spoken=["mon numéro c'est {W}"],
        t_biz=["Ma commande {O} n'est toujours pas arrivée.", "Sur la facture {O} il y a {A} euros de trop.", "Le numéro de dossier est {O}, ouvert le {D}.", "Référence {O}, merci de vérifier."],
        t_plain=["Le colis est arrivé abîmé.", "Je voudrais résilier mon abonnement à la fin du mois.", "Le remboursement n'apparaît pas encore sur mon compte.", "L'application se ferme toute seule depuis la mise à jour."],
        t_en=["Sorry, can we speak English please?", "I already tried to reset the password twice.", "Thanks a lot, have a nice day."],
        t_mixed=["J'ai déjà fait un reset mais le wifi ne marche toujours pas.", "Le livreur a dit que le package était livré, mais je n'ai rien reçu."],
        t_short=["D'accord, merci.", "Parfait", "Merci !"],
    ),
    "es-ES": dict(
        lang="es", first=["Lucía", "Javier", "Marta", "Pablo", "Carmen", "Sergio", "Elena", "Álvaro", "Nuria", "Diego"],
        last=["García", "Fernández", "López", "Martínez", "Sánchez", "Romero", "Navarro", "Torres", "Ruiz", "Moreno"],
        streets=["Calle Mayor", "Calle de Alcalá", "Avenida de América", "Plaza de España", "Paseo de la Castellana", "Calle del Sol"],
        cities=["Madrid", "Sevilla", "Valencia", "Bilbao", "Zaragoza"],
        pc=lambda: f"{rng.randint(1, 52):02d}{digits(3)}",
        phone=lambda: rng.choice([f"6{digits(2)} {digits(3)} {digits(3)}", f"6{digits(8)}", f"+34 6{digits(2)} {digits(3)} {digits(3)}"]),
        nid=("es_dni", dni), iban=lambda: iban("ES", es_bban()),
        words="cero uno dos tres cuatro cinco seis siete ocho nueve".split(),
        t_name=["Hola, me llamo {N}.", "Buenas, mi nombre es {N} y llamo por una factura.", "Le habla {N}."],
        t_phone=["Me pueden localizar en el {P}.", "Mi móvil es el {P}.", "Llámeme al {P} por la tarde."],
        t_id=["Mi DNI es {I}.", "El DNI de mi marido es {I}."],
        t_iban=["Pueden devolver el dinero a {B}.", "Mi IBAN es {B}."],
        t_addr=["Vivo en {S} {H}, {PC} {C}.", "La dirección de entrega es {S} {H}, {PC} {C}."],
        t_pc=["El código postal es {PC}.", "Código postal {PC}, en {C}."],
        t_spoken=["mi número es {W}"],
        t_biz=["Mi pedido {O} todavía no ha llegado.", "En la factura {O} me cobran {A} euros de más.", "El número de incidencia es {O}, abierta el {D}.", "Referencia {O}, por favor revísenlo."],
        t_plain=["El paquete llegó roto y falta una pieza.", "Quiero darme de baja a final de mes.", "La devolución todavía no aparece en mi cuenta.", "La aplicación se cierra sola desde la última actualización."],
        t_en=["Sorry, can we continue in English?", "I have been waiting for the refund for weeks.", "Perfect, thank you very much."],
        t_mixed=["Ya hice el reset del router pero sigue sin funcionar.", "El delivery dice entregado pero yo no he recibido nada."],
        t_short=["Vale, gracias.", "Perfecto", "Gracias"],
    ),
}


# Test split: templates written after the packs were tuned on the dev split above, and never tuned on:
# other phrasings, lower-case chat typing, values at the end or start of a turn, more code-switching.
TEST = {
    "nl-NL": dict(
        t_name=["Goedendag, ik ben {N} van de administratie.", "Dit is {N}, ik bel namens mijn vader."],
        t_phone=["Mijn 06 is {P}", "bereikbaar via {P} of per mail", "{P} is mijn nummer, bel gerust."],
        t_id=["bsn: {I}", "Hier is mijn burgerservicenummer {I}, voor de zekerheid."],
        t_iban=["Rekening {B} graag, dank u.", "Het IBAN-nummer: {B}"],
        t_addr=["Het adres is {S} {H}, {PC} {C}.", "Bezorgadres: {S} {H}, {PC} {C}"],
        t_biz=["Zending {O} staat al een week op 'onderweg'.", "Klantnummer {O}, factuurbedrag € {A}.", "Ik betaalde € {A} op {D} voor order {O}."],
        t_en=["Hi, do you speak English? I just moved here.", "The technician never showed up yesterday."],
        t_mixed=["Kun je even checken of mijn refund al processed is?", "Mijn account is locked, wat moet ik doen?"],
        t_plain=["Wanneer komt de monteur langs?", "Ik wil graag mijn contract verlengen met een jaar."],
    ),
    "de-DE": dict(
        t_name=["Guten Morgen, {N} am Apparat.", "Hallo, ich bin {N} aus der Buchhaltung."],
        t_phone=["Meine Nummer: {P}", "erreichbar ab 17 Uhr unter {P}", "{P} ist meine Handynummer."],
        t_id=["Steuer-ID {I}", "Hier meine Identifikationsnummer fürs Finanzamt: {I}."],
        t_iban=["Kontoverbindung: {B}", "Bitte die Erstattung an {B} senden."],
        t_addr=["Lieferung bitte an {S} {H}, {PC} {C}.", "Adresse: {S} {H}, {PC} {C}"],
        t_biz=["Sendungsnummer {O} hängt seit Tagen im Paketzentrum.", "Kundennummer {O}, Betrag {A} Euro.", "Am {D} habe ich {A} Euro für Auftrag {O} bezahlt."],
        t_en=["Hi, is there someone who speaks English?", "The delivery guy left the parcel outside."],
        t_mixed=["Können Sie checken, ob mein Refund schon processed wurde?", "Mein Account ist gesperrt, was soll ich tun?"],
        t_plain=["Wann kommt der Techniker vorbei?", "Ich möchte meinen Vertrag um ein Jahr verlängern."],
    ),
    "de-AT": dict(
        t_name=["Guten Tag, {N} am Apparat.", "Hallo, ich bin {N} von der Hausverwaltung."],
        t_phone=["Meine Nummer: {P}", "erreichbar am Nachmittag unter {P}", "{P} ist meine Handynummer."],
        t_id=["SV-Nummer {I}", "Hier die Sozialversicherungsnummer meines Sohnes: {I}."],
        t_iban=["Kontoverbindung: {B}", "Bitte die Gutschrift an {B} senden."],
        t_addr=["Zustellung bitte an {S} {H}, {PC} {C}.", "Adresse: {S} {H}, {PC} {C}"],
        t_biz=["Sendungsnummer {O} liegt seit Tagen im Verteilzentrum.", "Kundennummer {O}, Betrag {A} Euro.", "Am {D} habe ich {A} Euro für Auftrag {O} bezahlt."],
        t_en=["Hello, can someone help me in English?", "The parcel was left with my neighbour."],
        t_mixed=["Können Sie checken, ob meine Gutschrift schon approved ist?", "Mein Account ist gesperrt, was kann ich tun?"],
        t_plain=["Wann kommt der Techniker vorbei?", "Ich möchte meinen Vertrag um ein Jahr verlängern."],
    ),
    "sv-SE": dict(
        t_name=["Hej, {N} heter jag.", "God morgon, jag heter {N} och bor i Göteborg."],
        t_phone=["Mitt nummer: {P}", "nås på {P} efter fem", "{P} är mitt mobilnummer."],
        t_id=["personnummer {I}", "Här är mitt personnummer, {I}."],
        t_iban=["Kontonummer (IBAN): {B}", "Skicka återbetalningen till {B}."],
        t_addr=["Adressen är {S} {H}, {PC} {C}.", "Leverera till {S} {H}, {PC} {C}"],
        t_biz=["Kollinummer {O} har stått still i en vecka.", "Kundnummer {O}, belopp {A} kronor.", "Den {D} betalade jag {A} kronor för order {O}."],
        t_en=["Hi, could you help me in English please?", "The courier left the parcel at the wrong door."],
        t_mixed=["Kan du checka om min refund har blivit processed?", "Mitt konto är låst, vad ska jag göra?"],
        t_plain=["När kommer teknikern hem till mig?", "Jag vill förlänga mitt avtal med ett år."],
    ),
    "fr-FR": dict(
        t_name=["Bonjour, c'est {N} à l'appareil.", "Bonsoir, je suis {N}, la locataire du deuxième."],
        t_phone=["Mon numéro : {P}", "joignable après 18h au {P}", "{P}, c'est mon portable."],
        t_id=["NIR {I}", "Voici mon numéro de sécu : {I}."],
        t_iban=["Coordonnées bancaires : {B}", "Merci de rembourser sur {B}."],
        t_addr=["Livraison au {H} {S}, {PC} {C}.", "Adresse : {H} {S}, {PC} {C}"],
        t_biz=["Le colis {O} est bloqué depuis une semaine.", "Numéro client {O}, montant {A} euros.", "Le {D} j'ai payé {A} euros pour la commande {O}."],
        t_en=["Hello, does anyone speak English here?", "The courier left the parcel with the neighbours."],
        t_mixed=["Vous pouvez checker si mon refund est bien processed ?", "Mon compte est locked, je fais comment ?"],
        t_plain=["Quand est-ce que le technicien passe ?", "Je voudrais prolonger mon contrat d'un an."],
    ),
    "es-ES": dict(
        t_name=["Buenos días, soy {N}, la vecina del tercero.", "Hola, al habla {N}."],
        t_phone=["Mi número: {P}", "localizable por la tarde en el {P}", "{P} es mi móvil."],
        t_id=["DNI {I}", "Le paso mi DNI: {I}."],
        t_iban=["Cuenta (IBAN): {B}", "Hagan la devolución a {B}."],
        t_addr=["Entreguen en {S} {H}, {PC} {C}.", "Dirección: {S} {H}, {PC} {C}"],
        t_biz=["El envío {O} lleva una semana parado.", "Número de cliente {O}, importe {A} euros.", "El {D} pagué {A} euros por el pedido {O}."],
        t_en=["Hello, can somebody help me in English?", "The courier left the parcel at the wrong address."],
        t_mixed=["¿Pueden checkear si mi refund ya está processed?", "Mi cuenta está locked, ¿qué hago?"],
        t_plain=["¿Cuándo viene el técnico?", "Quiero renovar mi contrato un año más."],
    ),
}
TEST_KINDS = [("t_name", 5), ("t_phone", 8), ("t_id", 6), ("t_iban", 4), ("t_addr", 5), ("t_biz", 10), ("t_en", 6),
              ("t_mixed", 6), ("t_plain", 6)]


def fill(template: str, v: dict) -> tuple[str, list[dict]]:
    """Replace {X} slots left to right, recording gold spans for the PII ones."""
    kinds = {"N": "person_name", "P": "phone", "I": v["nid"][0], "B": "iban", "W": "phone"}
    out, spans, i = "", [], 0
    addr_start = None
    while i < len(template):
        j = template.find("{", i)
        if j < 0:
            out += template[i:]
            break
        out += template[i:j]
        k = template.index("}", j)
        slot = template[j + 1:k]
        if slot in ("S", "H") and addr_start is None and template.startswith(("Ik woon", "Stuur", "Ich wohne", "Die Liefer", "Schicken", "Jag bor", "Leverans", "J'habite", "L'adresse", "Vivo", "La direc", "Het adres", "Bezorg", "Lieferung", "Adresse", "Zustellung", "Adressen", "Leverera", "Livraison", "Entreguen", "Dirección")):
            addr_start = len(out)
        val = {"N": lambda: f"{rng.choice(v['first'])} {rng.choice(v['last'])}", "P": v["phone"],
               "I": v["nid"][1], "B": v["iban"], "S": lambda: rng.choice(v["streets"]),
               "H": lambda: str(rng.randint(1, 180)), "PC": v["pc"], "C": lambda: rng.choice(v["cities"]),
               "O": lambda: rng.choice([digits(8), f"{rng.choice('ABKR')}{digits(7)}", digits(10), digits(9)]),
               "A": lambda: f"{rng.randint(12, 480)},{rng.randint(0, 99):02d}",
               "D": lambda: f"{rng.randint(1, 28)}.{rng.randint(1, 12)}.2026",
               "W": lambda: " ".join(v["words"][int(c)] for c in "".join(ch for ch in v["phone"]() if ch.isdigit()) if not c == "+")}[slot]()
        if slot in kinds:
            spans.append({"start": len(out), "end": len(out) + len(val), "type": kinds[slot]})
        if slot == "PC" and addr_start is None:
            spans.append({"start": len(out), "end": len(out) + len(val), "type": POSTCODE[v["pack"]]})
        out += val
        if slot == "C" and addr_start is not None:
            spans.append({"start": addr_start, "end": len(out), "type": "address"})
            addr_start = None
        i = k + 1
    return out, spans


POSTCODE = {"nl-NL": "nl_postcode", "de-DE": "de_plz", "de-AT": "at_plz", "sv-SE": "se_postnummer",
            "fr-FR": "fr_code_postal", "es-ES": "es_codigo_postal"}
KINDS = [("t_name", 6), ("t_phone", 7), ("t_id", 6), ("t_iban", 4), ("t_addr", 5), ("t_pc", 4), ("t_spoken", 3),
         ("t_biz", 10), ("t_plain", 8), ("t_en", 6), ("t_mixed", 3), ("t_short", 2)]


def main() -> None:
    rows = []
    for pack, v in LANG.items():
        v["pack"] = pack
        n = 0
        for kind, count in KINDS:
            for _ in range(count):
                text, spans = fill(rng.choice(v[kind]), v)
                if kind == "t_spoken":
                    spans = [s for s in spans if s["type"] == "phone"]
                lang = "en" if kind == "t_en" else v["lang"]
                rows.append({"id": f"{pack}-{n:03d}", "split": "dev", "locale": pack, "lang": lang, "kind": kind[2:],
                             "text": text, "spans": spans})
                n += 1
        assert n >= 50
        t = {**v, **TEST[pack]}
        for kind, count in TEST_KINDS:
            for _ in range(count):
                text, spans = fill(rng.choice(t[kind]), t)
                rows.append({"id": f"{pack}-t{n:03d}", "split": "test", "locale": pack,
                             "lang": "en" if kind == "t_en" else v["lang"], "kind": kind[2:], "text": text,
                             "spans": spans})
                n += 1
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
