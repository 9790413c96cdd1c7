"""Write bench/data/pii_fresh4.jsonl: a person-name evaluation set that nobody has tuned on.

How it was made (2026-12-03): by a hand that did not read the recognizers, their packs or locale files, nor
the other sets' generators or rows (only the first three lines of pii_fresh3.jsonl, for the row format). The
templates below were written afresh in each language from how support chats, call-centre ASR transcripts
(lower case, no punctuation, numbers as words) and tickets/e-mails mention people; they are not translations
of one another. Names come from Faker (seed 8675309) in each pack's locale, plus a few names that are ordinary
words. Eight locales weigh the same; each positive wording is rendered three times with different names and
about three rows in ten are hard negatives with no span.

The set is read once, in bench/bench_privacy.py under the `fresh4/` prefix, and never tuned on.

    python bench/data/make_pii_fresh4.py
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from pathlib import Path

import phonenumbers
from faker import Faker

SEED = 8675309
RENDERINGS = 3
OUT = Path(__file__).parent / "pii_fresh4.jsonl"
DIGITS = "zero one two three four five six seven eight nine".split()

# pack -> (Faker locale, phone region, particle for `{pn}`, which part `{hn}` hyphenates)
LOCALES: dict[str, tuple[str, str, str, str]] = {
    "en-US": ("en_US", "US", "van", "surname"),
    "en-GB": ("en_GB", "GB", "de", "surname"),
    "en-IN": ("en_IN", "IN", "", "surname"),
    "de-DE": ("de_DE", "DE", "von", "surname"),
    "fr-FR": ("fr_FR", "FR", "de", "given"),
    "es-ES": ("es_ES", "ES", "de la", "surname"),
    "zh-CN": ("zh_CN", "CN", "", "surname"),
    "hi-IN": ("hi_IN", "IN", "", "surname"),
}

# names that are also ordinary words of the language: (given, surname)
WORD_NAMES: dict[str, list[tuple[str, str]]] = {
    "en-US": [("Hope", "Mason"), ("Rusty", "Brown")],
    "en-GB": [("Holly", "Bishop"), ("Rich", "Fisher")],
    "en-IN": [("Lucky", "Singh"), ("Sunny", "Gill")],
    "de-DE": [("Frank", "Wolf"), ("Ernst", "Sommer")],
    "fr-FR": [("Rose", "Petit"), ("Pierre", "Boulanger")],
    "es-ES": [("Dolores", "Blanco"), ("Rosario", "Moreno")],
    "zh-CN": [("雪", "白"), ("兴", "高")],
    "hi-IN": [("किरण", "शर्मा"), ("आशा", "वर्मा")],
}

# (pack, shape) -> the gender its wording gives the first person ("he", "she", a title), so names agree
GENDER: dict[tuple[str, str], str] = {
    ("en-US", "handoff"): "f",
    ("en-US", "third_party"): "m",
    ("en-US", "previous_agent"): "f",
    ("en-GB", "verify"): "f",
    ("en-GB", "third_party"): "m",
    ("en-GB", "previous_agent"): "f",
    ("en-IN", "third_party"): "m",
    ("en-IN", "courier"): "m",
    ("de-DE", "handoff"): "m",
    ("de-DE", "hyphen"): "f",
    ("fr-FR", "verify"): "f",
    ("fr-FR", "handoff"): "f",
    ("fr-FR", "third_party"): "f",
    ("fr-FR", "particle"): "m",
    ("fr-FR", "hyphen"): "m",
    ("es-ES", "handoff"): "m",
    ("es-ES", "courier"): "m",
    ("es-ES", "particle"): "m",
    ("zh-CN", "handoff"): "f",
    ("zh-CN", "courier"): "m",
    ("zh-CN", "previous_agent"): "f",
    ("hi-IN", "agent_intro"): "f",
    ("hi-IN", "caller_intro"): "m",
    ("hi-IN", "verify"): "m",
    ("hi-IN", "third_party"): "f",
    ("hi-IN", "romanised"): "m",
    ("hi-IN", "romanised_asr"): "m",
}

# (shape, asr, template); placeholders: {n} full name, {g} given, {s} surname, {n2} a second person,
# {pn} name with a particle, {hn} hyphenated name, {dn} given + two surnames, {rn} romanised Hindi name,
# {sp} the surname spelled letter by letter, {p} phone, {e} e-mail.
POS: dict[str, list[tuple[str, bool, str]]] = {
    "en-US": [
        ("agent_intro", False, "Hi, you've reached Brightline billing, my name is {g} and I can help with that."),
        ("caller_intro", True, "yeah hi this is {n} calling about the charge on my card"),
        ("handoff", False, "I'm going to loop in my colleague {n} from returns, she'll reply by end of day."),
        ("verify", True, "okay and just to confirm am i speaking with mister {s} the account holder"),
        ("third_party", False, "My husband {g} placed the order, can you send the receipt to {e}?"),
        ("signoff", False, "Thanks again for your patience.\n\nBest,\n{n}\nCustomer Care"),
        ("spelled", True, "the last name is {s} {sp}"),
        ("list", False, "Both {n} and {n2} are listed as authorized users on this account."),
        ("previous_agent", True, "i already talked to {g} yesterday and she said a tech would call me at {p}"),
        ("particle", False, "Please issue the refund to {pn}, that's the name on the card."),
    ],
    "en-GB": [
        ("agent_intro", True, "good morning you're through to northgate energy my name's {g} how can i help"),
        ("caller_intro", False, "Hiya, it's {n} here, I rang last week about the boiler."),
        ("verify", False, "It's in my wife's name, Mrs {n}, she's happy for me to speak for her."),
        ("handoff", True, "i'll pop you through to {n} in the complaints team now"),
        ("signoff", False, "Kind regards,\n{n}\nLettings Coordinator"),
        ("third_party", False, "The courier, a chap called {g}, left it with my neighbour {n2} at number 14."),
        ("contact", False, "Cheers for that, you can reach me on {p} or {e}. {g}"),
        ("spelled", True, "surname's {s} that's {sp}"),
        ("hyphen", False, "The booking is under {hn}, with a hyphen."),
        ("previous_agent", False, "I spoke to a lovely lady named {g} on Tuesday and she promised a callback."),
    ],
    "en-IN": [
        ("agent_intro", True, "thank you for calling swiftpay my name is {g} am i speaking with {n2}"),
        ("caller_intro", False, "Hello sir, I am {n} from Pune, my refund is still pending."),
        ("verify", False, "Kindly confirm the registered name once: {n}."),
        ("third_party", True, "my father {n} is the account holder he is not keeping well so i am calling"),
        ("handoff", False, "I am transferring your call to my senior, {n}, please stay on the line."),
        ("form", False, "Customer Name: {n}\nMobile: {p}\nCity: Chennai"),
        ("signoff", False, "Thanks & Regards,\n{n}\nSupport Executive"),
        ("courier", True, "the delivery boy {g} called me from this number {p}"),
        ("honorific", False, "Yesterday {g} ji from your Noida office told me the KYC was done."),
        ("list", False, "Please add {n} and {n2} as nominees on the policy."),
    ],
    "de-DE": [
        ("agent_intro", False, "Guten Tag, Sie sprechen mit {n} vom Kundenservice der Stadtwerke."),
        ("caller_intro", True, "ja hallo hier ist {n} ich hab da ein problem mit meiner rechnung"),
        ("verify", False, "Spreche ich mit Frau {s}, der Vertragsinhaberin?"),
        ("handoff", False, "Ich verbinde Sie mit meinem Kollegen Herrn {n}, der ist für Kündigungen zuständig."),
        ("signoff", False, "Mit freundlichen Grüßen\n{n}\nKundenbetreuung"),
        ("third_party", True, "das paket hat mein nachbar herr {s} angenommen"),
        ("particle", False, "Der Vertrag läuft auf {pn}, bitte schicken Sie die Unterlagen dorthin."),
        ("hyphen", False, "Ansprechpartnerin ist {hn}, erreichbar unter {p}."),
        ("spelled", True, "der nachname ist {s} also {sp}"),
        ("list", False, "Beim Termin waren {n}, {n2} und ich anwesend."),
    ],
    "fr-FR": [
        ("agent_intro", True, "bonjour vous êtes bien chez orange je m'appelle {g} que puis-je faire pour vous"),
        ("caller_intro", False, "Bonjour, c'est {n}, j'ai appelé hier pour ma facture."),
        ("verify", False, "Je suis bien en ligne avec Mme {n}, titulaire du contrat ?"),
        ("handoff", False, "Je vous passe ma collègue {g}, elle s'occupe des résiliations."),
        ("signoff", False, "Cordialement,\n{n}\nService client"),
        ("hyphen", False, "Le dossier est suivi par {hn} depuis mars."),
        ("particle", False, "Le colis doit être remis à M. {pn} en main propre."),
        ("third_party", True, "c'est ma fille {g} qui a passé la commande sur internet"),
        ("contact", False, "Vous pouvez me joindre au {p} ou par mail à {e}. Merci, {g}"),
        ("list", False, "Les bénéficiaires désignés sont {n} et {n2}."),
    ],
    "es-ES": [
        ("agent_intro", False, "Buenas tardes, le atiende {g}, ¿en qué puedo ayudarle?"),
        ("caller_intro", True, "hola buenas soy {n} y llamo por lo de la factura de la luz"),
        ("verify", False, "¿Hablo con la señora {s}, titular de la línea?"),
        ("handoff", False, "Le paso con mi compañero {n}, que lleva el tema de las devoluciones."),
        ("two_surnames", False, "El contrato está a nombre de {dn}, con los dos apellidos."),
        ("signoff", False, "Un saludo,\n{n}\nAtención al cliente"),
        ("courier", True, "el repartidor se llamaba {g} y me dejó el paquete en el portal"),
        ("particle", False, "La reserva es para don {pn}, llega el viernes."),
        ("form", False, "Nombre: {n}\nTeléfono: {p}\nMotivo: alta nueva"),
        ("list", True, "los autorizados en la cuenta son {n} y {n2}"),
    ],
    "zh-CN": [
        ("agent_intro", False, "您好，我是客服{n}，很高兴为您服务。"),
        ("caller_intro", True, "喂你好我叫{n}我想问一下我的快递到哪了"),
        ("verify", False, "请问是{s}先生本人吗？"),
        ("handoff", False, "我帮您转接给同事{n}，她负责退款。"),
        ("signoff", False, "此致\n敬礼\n{n}\n售后服务部"),
        ("courier", True, "快递小哥说他叫{n}放在门口了但是我没看到"),
        ("form", False, "姓名：{n}\n电话：{p}\n问题：无法登录"),
        ("list", False, "{n}和{n2}都是这个账户的授权人。"),
        ("title", False, "{s}经理昨天已经答应给我退款了。"),
        ("previous_agent", True, "上次那个客服叫{n}的她说三天内给我回电话"),
    ],
    "hi-IN": [
        ("agent_intro", False, "नमस्ते, मेरा नाम {n} है, मैं आपकी क्या सहायता कर सकती हूँ?"),
        ("caller_intro", True, "हेलो मैं {n} बोल रहा हूँ मेरा रिचार्ज नहीं हुआ"),
        ("verify", False, "क्या मेरी बात श्री {n} से हो रही है?"),
        ("handoff", False, "मैं आपकी कॉल अपने सहकर्मी {n} को ट्रांसफर कर रहा हूँ।"),
        ("third_party", True, "मेरी बेटी {g} ने ऑर्डर किया था"),
        ("honorific", False, "कल {g} जी ने बताया था कि पैसा वापस आ जाएगा।"),
        ("signoff", False, "धन्यवाद,\n{n}\nग्राहक सेवा"),
        ("romanised", False, "Namaste, main {rn} bol raha hoon, mera order abhi tak nahi aaya."),
        ("romanised_asr", True, "haan ji mera naam {rn} hai aur mera number {p} hai"),
        ("form", False, "नाम: {n}\nमोबाइल: {p}\nशहर: जयपुर"),
    ],
}

NEG: dict[str, list[tuple[str, bool, str]]] = {
    "en-US": [
        ("neg_place", False, "Do you ship to Jordan or only within the States?"),
        ("neg_street", False, "The Lincoln Avenue store closes at nine on Sundays."),
        ("neg_brand", False, "I opened the Chase Sapphire card in May and the fee doubled."),
        ("neg_day", False, "Can the installer come out on Monday afternoon instead?"),
        ("neg_product", True, "i need to reset the password on my mac mini it keeps asking for the old one"),
        ("neg_word", False, "Mark the ticket as resolved once the customer confirms."),
        ("neg_title", False, "Our account manager will review the contract next week."),
        ("neg_asr", True, "yeah i was on hold for like twenty minutes and then it dropped"),
        ("neg_company", False, "Ford Motor Credit still shows the old balance."),
        ("neg_product", False, "Will the Summer sale include the Kindle Paperwhite?"),
        ("neg_company", False, "Please bill the Johnson & Johnson office in Austin, not the Dallas one."),
        ("neg_place", True, "can you check if the package went to the warehouse in virginia"),
        ("neg_word", False, "Grace period for late payments is ten days per the policy."),
    ],
    "en-GB": [
        ("neg_place", False, "Is the Reading branch open on bank holidays?"),
        ("neg_street", True, "i'm calling from the flat on victoria road the one above the chemist"),
        ("neg_brand", False, "Our Sainsbury's order turned up without the milk again."),
        ("neg_title", False, "Please forward this to the duty manager before Friday."),
        ("neg_month", False, "Will the April price rise apply to fixed tariffs?"),
        ("neg_asr", True, "sorry the line's really bad can you say that again"),
        ("neg_company", False, "Marks and Spencer vouchers can't be used online, I'm afraid."),
        ("neg_place", False, "Victoria Station was shut so the engineer is running late."),
        ("neg_word", False, "Sterling transfers clear within two working days."),
        ("neg_word", False, "Rose gold is out of stock in the larger model."),
        ("neg_asr", True, "yeah the engineer came round on wednesday but he couldn't fix it"),
        ("neg_title", False, "Our head of customer service reads every complaint personally."),
        ("neg_street", False, "Baker Street and Kings Cross are both in the delivery zone."),
    ],
    "en-IN": [
        ("neg_place", False, "Is the Ganga Aarti tour included in the Varanasi package?"),
        ("neg_asr", True, "my upi payment failed twice yesterday but money got debited"),
        ("neg_brand", False, "Please share the Diwali offer details for the Tata Nexon."),
        ("neg_title", False, "Our branch manager will call you before Monday."),
        ("neg_street", False, "Lakshmi Road branch timings are ten to four."),
        ("neg_street", False, "Kindly update the address to MG Road, Bengaluru."),
        ("neg_asr", True, "the otp is not coming on my phone since morning"),
        ("neg_company", False, "Reliance Jio recharge got deducted but plan not activated."),
        ("neg_word", False, "Pooja items will be delivered by evening."),
        ("neg_day", False, "Sunday is a holiday so the courier will come on Monday."),
        ("neg_title", True, "madam i already told the customer care executive about this issue"),
        ("neg_company", False, "Infosys employees get a corporate discount on this plan."),
        ("neg_start", False, "Please do the needful and close the complaint."),
    ],
    "de-DE": [
        ("neg_street", False, "Die Filiale in der Goethestraße hat samstags geschlossen."),
        ("neg_month", False, "Im Mai wurde der Abschlag schon wieder erhöht."),
        ("neg_brand", True, "ich hab den router von der telekom schon dreimal neu gestartet"),
        ("neg_company", False, "Können Sie mir die Rechnung von Vodafone weiterleiten?"),
        ("neg_title", False, "Der Sachbearbeiter meldet sich morgen bei Ihnen."),
        ("neg_word", False, "Frank und frei gesagt, der Service war enttäuschend."),
        ("neg_place", False, "Bitte schicken Sie den Techniker nach Mainz, nicht nach Wiesbaden."),
        ("neg_asr", True, "die hotline war den ganzen vormittag besetzt"),
        ("neg_brand", False, "Die Porsche-Werkstatt hat den Termin verschoben."),
        ("neg_product", False, "Mein Tarif heißt Sommer Spezial, gilt der noch?"),
        ("neg_title", False, "Der Kundenberater hat gesagt, das dauert zwei Wochen."),
        ("neg_place", False, "Die Lieferung kommt aus dem Lager in Kaiserslautern."),
        ("neg_asr", True, "ja genau die kundennummer steht oben rechts auf dem brief"),
    ],
    "fr-FR": [
        ("neg_street", False, "La boutique de la rue Victor Hugo ferme à 19 h."),
        ("neg_brand", False, "J'ai acheté une Renault Clio en juin."),
        ("neg_asr", True, "j'ai redémarré la box trois fois ça marche toujours pas"),
        ("neg_title", False, "Le conseiller clientèle m'a promis un geste commercial."),
        ("neg_word", False, "Pierre qui roule n'amasse pas mousse, comme on dit."),
        ("neg_place", False, "Votre colis est en attente au relais de Saint-Étienne."),
        ("neg_word", False, "Rose poudré n'est plus disponible en taille M."),
        ("neg_asr", True, "le technicien devait passer mardi matin mais personne est venu"),
        ("neg_company", False, "Les Galeries Lafayette acceptent-elles la carte cadeau ?"),
        ("neg_title", False, "Le responsable du service vous rappellera demain."),
        ("neg_brand", False, "Mon abonnement Free a augmenté depuis janvier."),
        ("neg_start", False, "Merci de préciser le numéro de commande dans l'objet."),
        ("neg_place", True, "oui alors c'est pour un changement d'adresse à lyon"),
    ],
    "es-ES": [
        ("neg_street", False, "La tienda de la calle Alcalá abre a las diez."),
        ("neg_brand", False, "Compré un Seat Ibiza en agosto."),
        ("neg_brand", True, "el router de movistar se reinicia solo cada dos por tres"),
        ("neg_title", False, "El jefe de tienda me dijo que lo cambiaban sin problema."),
        ("neg_word", False, "Dolores de cabeza es lo que me da esta factura."),
        ("neg_place", False, "¿Hacen envíos a Santiago de Compostela?"),
        ("neg_company", False, "Mercedes-Benz nos ha enviado otra vez la misma carta."),
        ("neg_asr", True, "llevo media hora esperando y nadie me coge el teléfono"),
        ("neg_company", False, "El Corte Inglés no acepta este cupón."),
        ("neg_month", False, "Las rebajas de enero terminan el domingo."),
        ("neg_title", False, "Su gestor comercial le llamará mañana."),
        ("neg_street", False, "Envíe el paquete a la Plaza de España, número cuatro."),
        ("neg_asr", True, "vale pues entonces espero al técnico el lunes por la mañana"),
    ],
    "zh-CN": [
        ("neg_place", False, "请问你们在上海浦东有门店吗？"),
        ("neg_brand", False, "我买的华为手机屏幕坏了。"),
        ("neg_asr", True, "我的宽带从昨天晚上开始就一直断网"),
        ("neg_place", False, "王府井那家店几点关门？"),
        ("neg_title", False, "客服经理说明天给我答复。"),
        ("neg_month", False, "我想把套餐改成五月份的优惠活动。"),
        ("neg_brand", False, "小米的充电器能用在这个型号上吗？"),
        ("neg_asr", True, "我已经等了半个小时了还是没有人接"),
        ("neg_street", False, "订单寄到中山路一百二十号就行。"),
        ("neg_word", False, "黄金会员有什么额外的权益？"),
        ("neg_company", False, "李宁的运动鞋可以七天无理由退货吗？"),
        ("neg_title", False, "这个问题请转给技术部处理。"),
        ("neg_asr", True, "那我明天上午再打过来吧"),
    ],
    "hi-IN": [
        ("neg_place", False, "क्या आपकी दुकान दिल्ली में भी है?"),
        ("neg_brand", False, "मैंने दिवाली पर टाटा की गाड़ी बुक की थी।"),
        ("neg_asr", True, "मेरा इंटरनेट सुबह से नहीं चल रहा"),
        ("neg_title", False, "शाखा प्रबंधक कल आपसे संपर्क करेंगे।"),
        ("neg_place", False, "गंगा नदी के किनारे वाला होटल बुक करना है।"),
        ("neg_brand", False, "Mera paytm wallet block ho gaya hai, kya karun?"),
        ("neg_asr", True, "otp nahi aa raha hai madam"),
        ("neg_word", False, "लक्ष्मी पूजा के लिए सामान शाम तक पहुँच जाएगा।"),
        ("neg_street", False, "कृपया पता बदलकर गांधी नगर कर दीजिए।"),
        ("neg_day", False, "Kal Sunday hai to delivery Monday ko hogi."),
        ("neg_title", True, "मैंने पहले भी कस्टमर केयर को बताया था"),
        ("neg_company", False, "रिलायंस का रिचार्ज कट गया लेकिन प्लान चालू नहीं हुआ।"),
        ("neg_start", False, "कृपया शिकायत संख्या नोट कर लीजिए।"),
    ],
}

PLACEHOLDER = re.compile(r"\{(\w+)\}")
NAME_KEYS = {"n", "g", "s", "n2", "pn", "hn", "dn", "rn", "sp"}
DOMAINS = ("gmail.com", "outlook.com", "yahoo.com", "hotmail.com")


def _slug(text: str) -> str:
    """An e-mail local part from a Latin name: accents dropped, letters only."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z]", "", plain.lower())


def _phone(rng: random.Random, region: str) -> phonenumbers.PhoneNumber:
    """A valid mobile number of `region`: the example number with its last six digits drawn."""
    example = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE)
    digits = str(example.national_number)
    while True:
        candidate = digits[:-6] + "".join(str(rng.randrange(10)) for _ in range(6))
        number = phonenumbers.parse(candidate, region) if region != "IN" else phonenumbers.parse("+91" + candidate)
        if phonenumbers.is_valid_number(number):
            return number


class _Names:
    """Draws people for one pack from its Faker locale (and en_IN for romanised Hindi)."""

    def __init__(self, locale: str) -> None:
        faker_locale, self.region, self.particle, self.hyphen = LOCALES[locale]
        self.locale = locale
        self.fake = Faker(faker_locale)
        self.fake.seed_instance(SEED)
        self.roman = Faker("en_IN")
        self.roman.seed_instance(SEED)
        self.rng = random.Random(f"{SEED}-{locale}")

    def full(self, given: str, surname: str) -> str:
        return surname + given if self.locale == "zh-CN" else f"{given} {surname}"

    def _particle(self, surname: str) -> str:
        """The pack's particle and the space after it; French elides "de" before a vowel."""
        if self.particle == "de" and self.locale == "fr-FR" and surname[0] in "AEIOUYÉÈÊ":
            return "d'"
        return f"{self.particle} "

    @staticmethod
    def _given(fake: Faker, gender: str | None) -> str:
        return {"m": fake.first_name_male, "f": fake.first_name_female}.get(gender or "", fake.first_name)()

    def _surname(self) -> str:
        """A Faker surname; in de-DE one word, skipping its "auch …" and "II" entries."""
        while True:
            surname = self.fake.last_name()
            if self.locale != "de-DE" or " " not in surname:
                return surname

    def values(self, word_name: tuple[str, str] | None, gender: str | None) -> dict[str, str]:
        """Every placeholder's value for one rendering (names, phone, e-mail), before ASR lower-casing."""
        given, surname = word_name or (self._given(self.fake, gender), self._surname())
        other = self.full(self.fake.first_name(), self._surname())
        if self.hyphen == "given":
            hyphenated = f"{given}-{self._given(self.fake, gender)} {surname}"
        else:
            hyphenated = f"{given} {surname}-{self._surname()}"
        number = _phone(self.rng, self.region)
        written = phonenumbers.PhoneNumberFormat.NATIONAL
        if self.region in {"IN", "CN", "ES"}:
            written = phonenumbers.PhoneNumberFormat.INTERNATIONAL
        return {
            "n": self.full(given, surname),
            "g": given,
            "s": surname,
            "n2": other,
            "pn": f"{given} {self._particle(surname)}{surname}",
            "hn": hyphenated,
            "dn": f"{given} {surname} {self._surname()}",
            "rn": f"{self._given(self.roman, gender)} {self.roman.last_name()}",
            "sp": " ".join(ch for ch in surname.lower() if ch.isalpha()),
            "p": phonenumbers.format_number(number, written),
            "p_asr": " ".join(
                DIGITS[int(d)]
                for d in re.sub(r"\D", "", phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL))
            ),
            "e": f"{_slug(given)}.{_slug(surname)}@{self.rng.choice(DOMAINS)}",
        }


def _render(template: str, values: dict[str, str], asr: bool) -> tuple[str, list[dict]]:
    """The template filled in, with one span per placeholder; the span text is asserted to be the value."""
    text, spans, last = "", [], 0
    for m in PLACEHOLDER.finditer(template):
        key = m.group(1)
        value = values["p_asr"] if asr and key == "p" else values[key]
        if asr and key in NAME_KEYS:
            value = value.lower().replace("-", " ")
        text += template[last : m.start()]
        kind = "person_name" if key in NAME_KEYS else {"p": "phone", "e": "email"}[key]
        spans.append({"start": len(text), "end": len(text) + len(value), "type": kind})
        text += value
        last = m.end()
        assert text[spans[-1]["start"] : spans[-1]["end"]] == value
    return text + template[last:], spans


def _locale_rows(locale: str) -> list[dict]:
    names = _Names(locale)
    rows: list[dict] = []
    for index, (shape, asr, template) in enumerate(POS[locale]):
        seen: set[tuple[str, ...]] = set()
        for rendering in range(RENDERINGS):
            word_name = None
            if rendering == RENDERINGS - 1 and index in (1, 5):
                word_name = WORD_NAMES[locale][index // 5]
            while True:
                text, spans = _render(template, names.values(word_name, GENDER.get((locale, shape))), asr)
                key = tuple(text[s["start"] : s["end"]] for s in spans if s["type"] == "person_name")
                if key not in seen:
                    seen.add(key)
                    break
                word_name = None
            rows.append(_row(locale, len(rows), text, spans, asr, shape))
    for shape, asr, text in NEG[locale]:
        assert "{" not in text and shape.startswith("neg_")
        rows.append(_row(locale, len(rows), text, [], asr, shape))
    return rows


def _row(locale: str, n: int, text: str, spans: list[dict], asr: bool, shape: str) -> dict:
    return {
        "id": f"{locale}-f{n:03d}",
        "locale": locale,
        "text": text,
        "spans": spans,
        "asr": asr,
        "split": "fresh4",
        "shape": shape,
    }


def build() -> list[dict]:
    """All rows, locale by locale, positives (three renderings per wording) before hard negatives."""
    return [row for locale in LOCALES for row in _locale_rows(locale)]


def main() -> None:
    rows = build()
    with open(OUT, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
