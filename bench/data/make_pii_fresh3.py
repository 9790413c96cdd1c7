"""Write bench/data/pii_fresh3.jsonl: a person-name evaluation set in eight locales, read once and never tuned on.

How it was made (issue 27): by a hand that did not read the recognizers, their packs or cue lists, nor the
other evaluation sets or their generators (only the first rows of pii_fresh2.jsonl, for the row format).
The templates were written directly in each language from how support chats, call-centre ASR transcripts
(lower case, no punctuation, numbers as words), tickets and e-mails mention people: callers and agents
introducing themselves, hand-offs, account-holder checks, third parties, sign-offs, form fields, spelled
surnames, lists, particles and hyphens, Han names with and without titles, Hindi in Devanagari and romanised.
Names come from Faker seeded 90210 in each pack's locale (romanised Hindi from en_IN), plus a few names that
are ordinary words. About 30% of rows are hard negatives with no name span (places, brands, months, streets,
companies, job titles, words that are also given names). Titles (Mr, Frau, Mme, señora, 先生, श्री, ji) lie
outside the spans. Every positive template is rendered three times with different names.

The set is measured once by bench_privacy (prefix `fresh3/`); tuning on its misses would spoil it.

    python bench/data/make_pii_fresh3.py
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from pathlib import Path

import phonenumbers
from faker import Faker

SEED = 90210
RENDERINGS = 3
NEG_RENDERINGS = 2
OUT = Path(__file__).with_name("pii_fresh3.jsonl")
# pack locale -> (Faker locale, phone region)
LOCALES = {
    "en-US": ("en_US", "US"),
    "en-GB": ("en_GB", "GB"),
    "en-IN": ("en_IN", "IN"),
    "de-DE": ("de_DE", "DE"),
    "fr-FR": ("fr_FR", "FR"),
    "es-ES": ("es_ES", "ES"),
    "zh-CN": ("zh_CN", "CN"),
    "hi-IN": ("hi_IN", "IN"),
}
ROMAN = {"hi-IN": "en_IN"}  # where romanised names ({r...} slots) come from
PARTICLES = {"de-DE": ["von", "van der", "zu"], "fr-FR": ["de", "du", "de la"], "es-ES": ["de", "del", "de la"]}
# local phone shapes; X is a random digit, the result is kept only when libphonenumber calls it valid
PHONE_SHAPES = {
    "US": ["(415) 2XX-XXXX", "(312) 5XX-XXXX", "617-3XX-XXXX"],
    "GB": ["07700 9XXXXX", "07XXX XXXXXX", "020 7XXX XXXX"],
    "IN": ["98XXX XXXXX", "+91 97XXX XXXXX", "88XXX XXXXX"],
    "DE": ["0151 XXXXXXXX", "030 XXXXXXXX", "0171 XXXXXXX"],
    "FR": ["06 XX XX XX XX", "07 XX XX XX XX", "01 4X XX XX XX"],
    "ES": ["6XX XX XX XX", "91X XX XX XX", "7XX XXX XXX"],
    "CN": ["138XXXXXXXX", "159 XXXX XXXX", "186XXXXXXXX"],
}
DIGIT_WORDS = "zero one two three four five six seven eight nine".split()
SLOT = re.compile(r"\{(\w+)\}")
LEGAL_FORM = re.compile(r"\b(Ltd|PLC|Inc|LLC|Group|GmbH|AG|KG|KGaA|OHG|SE|SA|SARL|SAS|S\.A\.|S\.L\.)(?!\w)|有限公司")
ASR_FORBIDDEN = re.compile(r"[.,!?;:，。？！、।\d]")  # what an ASR transcript here never holds
NAME_SLOTS = {
    "full",
    "first",
    "last",
    "full2",
    "first2",
    "last2",
    "full3",
    "hyph",
    "part",
    "spell",
    "inv",
    "upper",
    "double",
    "init",
    "word",
    "rfull",
    "rfirst",
    "rlast",
    "rfull2",
    "rspell",
    "rmfull",
    "ffull",
    "ffirst",
    "mfull",
    "mfirst",
}

# Names that are also ordinary words of the language (rendered in turn, one per rendering).
WORD_NAMES = {
    "en-US": ["Grace Cook", "Will Baker", "Mark Rich", "Hope Little", "Rose Hill", "Hunter Price"],
    "en-GB": ["Faith Young", "Bill Carpenter", "Holly Wood", "Robin Fisher", "Frank Bishop", "Pearl Mason"],
    "en-IN": ["Pinky Sharma", "Sunny Gupta", "Happy Arora", "Lucky Verma", "Honey Kapoor", "Goldie Bedi"],
    "de-DE": ["Frank Wolf", "Otto Vogel", "Anna Fuchs", "Lisa Lange", "Karl Klein", "Hans Koch"],
    "fr-FR": [
        "Pierre Boulanger",
        "Olivier Marchand",
        "Rose Petit",
        "Claire Fontaine",
        "Marin Lefort",
        "Pascal Leblanc",
    ],
    "es-ES": ["Rosa Blanco", "Paz Delgado", "Luz Moreno", "Pilar Rubio", "Dolores Montes", "Amparo Castillo"],
    "zh-CN": ["李想", "黎明", "高山", "张扬", "方圆", "马达"],
    "hi-IN": ["आशा वर्मा", "किरण शर्मा", "सागर पाटिल", "पूजा गुप्ता", "दीपक सिंह", "कमल जोशी"],
}

# Positive templates: (shape, asr, text). Slots: {full} {first} {last} = the first person; {full2} {first2}
# {last2} a second; {full3} a third; {hyph} a hyphenated (es: two-surname) name, {part} one with a particle,
# {inv} "Last, First", {upper} "LAST First", {double} given name plus two surnames, {init} "J. Last",
# {spell} the surname spelled letter by letter, {word} a name that is also a word; {r...} romanised names;
# {phone} {email}. Every slot but the phone and e-mail is one person_name span.
POS: dict[str, list[tuple[str, bool, str]]] = {
    "en-US": [
        ("agent_intro", False, "Thanks for reaching out to support, this is {first} and I'll be helping you today."),
        ("caller_intro", False, "hey, {full} here. my router keeps dropping every evening around 9"),
        ("caller_intro", True, "yeah hi my name is {full} i'm calling about a charge on my card"),
        ("spelled", True, "the last name is {last} that's {spell}"),
        ("verify_holder", True, "and am i speaking with the account holder {full}"),
        ("verify_holder", False, "Agent: Can you confirm the full name on the account?\nCustomer: It's under {full}."),
        ("form_field", False, "Customer name: {full}\nCallback number: {phone}\nIssue: double billing"),
        ("signature", False, "Thanks again for sorting this out so quickly.\n\nBest,\n{full}"),
        ("handoff", False, "I'm going to transfer you to {ffirst} on our billing team, she can issue the refund."),
        ("previous_agent", True, "i already spoke to somebody named {ffirst} yesterday and she said it was fixed"),
        ("third_party_family", False, "The account was opened by my husband, {mfull}, but I'm the one who uses it."),
        ("courier", False, "Tracking says it was signed for by {last2}?? Nobody by that name lives here."),
        ("mid_sentence", False, "Escalated at the request of Mr. {last}; {full2} from QA will review the call."),
        ("list", False, "Attendees: {full}, {full2} and {full3}"),
        ("word_name", False, "Hi, this is {word}, I placed an order last week and it never shipped."),
        ("title", True, "okay mrs {last} i've updated the address on file for you"),
        ("third_party", False, "Please change the authorized user from {full} to {full2}, effective immediately."),
        ("callback", True, "you can reach me at {phone} and just ask for {first}"),
        ("initial", False, "Ticket reassigned to {init} (Tier 2) after the outage."),
    ],
    "en-GB": [
        ("caller_intro", False, "Hiya, it's {full}. I rang yesterday about my broadband and was promised a call back."),
        ("agent_intro", True, "good afternoon you're through to {first} how can i help"),
        ("verify_holder", True, "can i just take the name of the account holder please yeah it's {full}"),
        ("spelled", True, "surname's {last} that's {spell}"),
        ("signature", False, "Kind regards,\n{full}"),
        ("handoff", False, "I'll pop you through to my colleague {full2} in the complaints team."),
        ("form_field", False, "Name of policyholder: {full}\nContact number: {phone}"),
        ("third_party_family", False, "My mum, {ffull}, is the named driver on the policy."),
        ("courier", False, "The driver left it with a neighbour, a Mr {last2} at number 14."),
        ("previous_agent", True, "i spoke to a lady called {ffirst} last week and she said she'd sort it"),
        ("mid_sentence", False, "Customer states {full} is no longer at this address; post returned."),
        ("list", False, "Cc: {full}; {full2}; {full3}"),
        ("hyphen", False, "It's {hyph}, double-barrelled, with a hyphen."),
        ("word_name", True, "hi it's {word} calling back about my renewal"),
        ("title", False, "Dear Ms {last},\nThank you for your patience while we looked into this."),
        ("mid_sentence", False, "Could you let {first} know the engineer is booked for Tuesday?"),
        ("initial", False, "Approved by {init}, Team Leader"),
        ("callback", True, "best number to reach me on is {phone} and ask for {full}"),
        ("verify_holder", False, "Just to confirm, am I speaking with {full}?"),
    ],
    "en-IN": [
        ("caller_intro", False, "Hello sir, myself {full}, I am facing issue with my postpaid bill."),
        ("agent_intro", True, "hello this is {first} from customer care am i speaking to {full2}"),
        ("spelled", True, "my surname is {last} {spell}"),
        ("signature", False, "Kindly do the needful.\nRegards,\n{full}"),
        ("handoff", False, "Please connect me to {ffirst} ji, she was handling my complaint."),
        ("form_field", False, "Applicant Name: {full}\nMobile: {phone}\nCity: Pune"),
        ("third_party_family", False, "The connection is in my father's name, {mfull}."),
        ("courier", False, "Delivery boy {mfirst} called and said he is waiting outside the gate."),
        ("verify_holder", True, "can you please confirm the registered name sir it is {full}"),
        ("previous_agent", False, "Case was earlier handled by {full2}; customer unhappy with resolution."),
        ("title", False, "Dear Mr. {last}, your refund has been processed."),
        ("list", False, "Nominees: {full}, {full2}"),
        ("previous_agent", True, "i already told {ffirst} madam two times but nobody called back"),
        ("word_name", False, "Hi, {word} here, my order is still not delivered."),
        ("email_header", False, "From: {full} <{email}>\nSubject: Refund not received"),
        ("callback", True, "note down my alternate number {phone} and the name is {full}"),
        ("initial", False, "KYC verified by {init} on the same day."),
        ("third_party_family", False, "Mrs. {ffull} and her son {mfirst} both use the family plan."),
        ("handoff", True, "i am transferring your call to my senior {full2} please hold the line"),
    ],
    "de-DE": [
        ("caller_intro", False, "Guten Tag, mein Name ist {full}, ich habe eine Frage zu meiner letzten Rechnung."),
        ("caller_intro", True, "ja hallo hier spricht {full} ich rufe wegen meiner kündigung an"),
        ("agent_intro", True, "schönen guten tag sie sprechen mit {full} was kann ich für sie tun"),
        ("spelled", True, "der nachname ist {last} ich buchstabiere {spell}"),
        ("signature", False, "Vielen Dank im Voraus.\n\nMit freundlichen Grüßen\n{full}"),
        ("handoff", False, "Ich verbinde Sie mit meiner Kollegin Frau {last2} aus der Buchhaltung."),
        ("form_field", False, "Name, Vorname: {inv}\nTelefon: {phone}"),
        ("verify_holder", False, "Spreche ich mit dem Vertragsinhaber, Herrn {full}?"),
        ("third_party_family", False, "Der Vertrag läuft auf meine Frau, {ffull}, sie ist gerade nicht erreichbar."),
        ("courier", False, "Laut Sendungsverfolgung wurde das Paket bei {full2} im Erdgeschoss abgegeben."),
        ("previous_agent", True, "ihr kollege herr {last2} hat mir letzte woche eine gutschrift versprochen"),
        ("particle", False, "Ansprechpartner ist {part}, Abteilung Einkauf."),
        ("hyphen", False, "Bitte stellen Sie die Rechnung auf {hyph} aus."),
        ("list", False, "Teilnehmer: {full}, {full2}, {full3}"),
        ("word_name", False, "Hallo, hier ist {word}, meine Bestellung ist immer noch nicht angekommen."),
        ("mid_sentence", False, "Können Sie {first} bitte ausrichten, dass der Techniker am Dienstag kommt?"),
        ("title", True, "alles klar frau {last} dann trage ich das so ein"),
        ("callback", False, "Rückruf erbeten von {full} unter {phone}."),
        ("initial", False, "Mit freundlichen Grüßen\ni. A. {init}"),
    ],
    "fr-FR": [
        ("caller_intro", False, "Bonjour, je suis {full} et je n'arrive plus à me connecter à mon espace client."),
        ("caller_intro", True, "oui bonjour c'est {full} je vous appelle au sujet de ma facture"),
        (
            "agent_intro",
            True,
            "bonjour vous êtes bien au service client je m'appelle {first} que puis-je faire pour vous",
        ),
        ("spelled", True, "mon nom c'est {last} je vous l'épelle {spell}"),
        ("signature", False, "Merci d'avance pour votre retour.\n\nCordialement,\n{full}"),
        ("handoff", False, "Je vous transfère à ma collègue {ffirst}, elle s'occupe des remboursements."),
        ("form_field", False, "NOM Prénom : {upper}\nTéléphone : {phone}"),
        ("verify_holder", False, "Pouvez-vous me confirmer le nom du titulaire du contrat ? Oui, c'est {full}."),
        ("third_party_family", False, "Le compte est au nom de mon mari, {mfull}."),
        ("courier", False, "Le livreur dit avoir remis le colis à Mme {last2}, ma voisine du dessus."),
        ("previous_agent", True, "j'ai déjà eu votre collègue monsieur {last2} au téléphone la semaine dernière"),
        ("particle", False, "Le dossier est suivi par {part} depuis le mois dernier."),
        ("hyphen", False, "Veuillez adresser le courrier à {hyph}."),
        ("list", False, "Présents : {full}, {full2} et {full3}."),
        ("word_name", False, "Bonjour, c'est {word}, j'ai un souci avec ma commande."),
        ("mid_sentence", False, "Pourriez-vous dire à {first} que le technicien passera mardi ?"),
        ("title", True, "très bien madame {last} je note votre nouvelle adresse"),
        ("callback", False, "Rappel demandé par {full} au {phone}."),
        ("initial", False, "Bien à vous,\n{init}"),
    ],
    "es-ES": [
        ("caller_intro", False, "Hola, buenas, soy {full} y tengo un problema con la última factura."),
        ("caller_intro", True, "sí hola mire le llamo porque me han cobrado dos veces soy {full}"),
        ("agent_intro", True, "buenas tardes le atiende {first} en qué puedo ayudarle"),
        ("spelled", True, "el apellido es {last} se lo deletreo {spell}"),
        ("signature", False, "Quedo a la espera de su respuesta.\n\nUn saludo,\n{full}"),
        ("handoff", False, "Le paso con mi compañera {ffirst}, del departamento de bajas."),
        ("form_field", False, "Nombre y apellidos: {double}\nTeléfono: {phone}"),
        ("verify_holder", False, "¿Es usted el titular de la línea, {full}?"),
        ("third_party_family", False, "La cuenta está a nombre de mi madre, {ffull}."),
        ("courier", False, "El repartidor dice que lo dejó con el portero, un tal {mfirst}."),
        (
            "previous_agent",
            True,
            "ya hablé ayer con una compañera suya que se llamaba {ffirst} y me dijo que estaba solucionado",
        ),
        ("particle", False, "La persona de contacto es {part}, de administración."),
        ("list", False, "Asistentes: {full}, {full2} y {full3}."),
        ("word_name", False, "Hola, soy {word}, mi pedido todavía no ha llegado."),
        ("mid_sentence", False, "¿Le puede decir a {first} que el técnico irá el martes?"),
        ("title", True, "muy bien señora {last} ya le he cambiado la dirección"),
        ("callback", False, "Solicita que le devuelvan la llamada {full} al {phone}."),
        ("initial", False, "Atentamente,\n{init}"),
        ("double_surname", True, "está a nombre de {double} con los dos apellidos"),
    ],
    "zh-CN": [
        ("caller_intro", False, "你好，我是{full}，我家宽带从昨天开始就上不了网了。"),
        ("caller_intro", True, "喂你好我叫{full}我想查一下这个月的话费"),
        ("agent_intro", True, "您好工号一二三七很高兴为您服务我是{full}"),
        ("title", False, "{last}先生，您的退款已经处理好了，请注意查收。"),
        ("title", True, "好的{last}女士我这边帮您登记一下"),
        ("han_no_cue", False, "昨天我打电话找过{full}，说今天会给我回复。"),
        ("han_no_cue", False, "这个订单是跟{full}确认过的，没有问题。"),
        ("form_field", False, "姓名：{full}\n手机：{phone}"),
        ("form_field", False, "账户持有人：{full}\n业务类型：宽带续费"),
        ("handoff", False, "我帮您转接给我的同事{ffull}，她负责售后这一块。"),
        ("third_party_family", False, "这个号码是用我爸爸{mfull}的名字办的。"),
        ("courier", False, "快递员{full2}打电话说放在门卫室了。"),
        ("previous_agent", False, "上周{last2}经理说会给我补偿，到现在还没消息。"),
        ("signature", False, "以上问题麻烦尽快处理，谢谢！\n{full}"),
        ("list", False, "参会人员：{full}、{full2}、{full3}"),
        ("verify_holder", True, "请问您是机主{full}本人吗"),
        ("word_name", False, "我刚才跟{word}说过了，让我再等等。"),
        ("han_no_cue", False, "{full}上个月已经办理了销户。"),
        ("email_cue", False, "有问题请联系{full}，邮箱 {email}"),
    ],
    "hi-IN": [
        ("caller_intro", False, "नमस्ते, मेरा नाम {full} है और मेरा रिचार्ज अभी तक नहीं हुआ।"),
        ("agent_intro", True, "नमस्कार मैं {ffull} बोल रही हूँ बताइए मैं आपकी क्या मदद कर सकती हूँ"),
        ("verify_holder", True, "क्या मेरी बात {full} जी से हो रही है"),
        ("title", False, "श्री {mfull} का खाता बंद कर दिया गया है।"),
        ("title", False, "श्रीमती {ffull} ने कल शिकायत दर्ज की थी।"),
        ("form_field", False, "नाम: {full}\nमोबाइल: {phone}"),
        ("handoff", False, "मैं आपकी कॉल अपने सहकर्मी {mfull} को ट्रांसफर कर रहा हूँ।"),
        ("third_party_family", False, "यह कनेक्शन मेरे पिताजी {mfull} के नाम पर है।"),
        ("courier", True, "डिलीवरी वाले {mfirst} का फोन आया था कि पार्सल गेट पर रख दिया है"),
        ("previous_agent", False, "पिछली बार {full2} जी ने कहा था कि पैसा तीन दिन में वापस आ जाएगा।"),
        ("signature", False, "धन्यवाद,\n{full}"),
        ("list", False, "सदस्य: {full}, {full2} और {full3}"),
        ("word_name", False, "{word} ने बताया कि सिम कार्ड बंद हो गया है।"),
        ("roman_intro", False, "Hello, main {rmfull} bol raha hoon, mera order abhi tak nahi aaya."),
        ("roman_intro", True, "haan ji mera naam {rfull} hai aur mujhe refund chahiye"),
        ("roman_handoff", True, "main aapki call {rfull2} ko transfer kar raha hoon line par bane rahiye"),
        ("roman_family", False, "Mere bhai {rmfull} ke account se payment hua tha, unka number band hai."),
        ("roman_spelled", True, "surname {rlast} hai {rspell}"),
        ("roman_title", False, "Thank you Mr. {rlast}, aapka complaint number note kar liya hai."),
    ],
}

# Hard negatives: no person_name span. Slots draw from the lists below (and Faker's company names).
NEG: dict[str, list[tuple[str, bool, str]]] = {
    "en-US": [
        ("neg_month", True, "my bill went up in {month} and nobody told me why"),
        ("neg_place", False, "Do you have a store in {city}? I'd rather return it in person."),
        ("neg_street", False, "The package shows as delivered to {street} but that's my old address."),
        ("neg_company", False, "I was charged twice by {company} on my statement, reference {order}."),
        ("neg_common_word", False, "Will the grace period still apply if I pay by the end of {month}?"),
        ("neg_product", False, "The Alexa app won't pair with the new speaker, order {order}."),
        ("neg_job_title", False, "Can I speak to a supervisor or the store manager about order {order}?"),
        ("neg_brand", False, "My {brand} dealer in {city} says the warranty doesn't cover it."),
        ("neg_common_word", True, "sure i will mark that as resolved and you'll get a survey from {brand}"),
        ("neg_capitalised", False, "Great, Thanks! Status: Pending Review since {month}."),
        ("neg_place", False, "I'm flying out of {city} on the first, so please hold the parcel."),
        ("neg_street", True, "i'm on the {street} side of the building and the driver can't find the entrance"),
    ],
    "en-GB": [
        ("neg_place", False, "Is there a branch in {city}, or do I have to post it back?"),
        ("neg_brand", False, "I bought it from {brand} in {month} and it's already broken."),
        ("neg_street", True, "the engineer went to {street} but i'm at the other end of the road"),
        ("neg_company", False, "The direct debit to {company} bounced, reference {order}."),
        ("neg_month", True, "my contract ends in {month} so i want to know my options"),
        ("neg_job_title", False, "I'd like to make a formal complaint to the Customer Relations Manager, ref {order}."),
        ("neg_common_word", False, "Will the holly wreath from the Christmas range arrive before {month}?"),
        ("neg_capitalised", False, "Brilliant. Cheers. Order {order} Dispatched From Warehouse."),
        ("neg_place", True, "i'm getting the train from {city} tomorrow so can you hold it at the depot"),
        ("neg_brand", True, "is the {brand} voucher still valid in {month}"),
        ("neg_street", False, "Parcel locker at {street} is full, please redeliver order {order}."),
        ("neg_product", False, "The Ring doorbell keeps going offline since the {month} update."),
    ],
    "en-IN": [
        ("neg_place", False, "Is there any service centre near {city}? Kindly share address."),
        ("neg_brand", False, "I purchased a {brand} product in {month}, warranty card is lost."),
        ("neg_street", False, "Courier reached {street} but could not find the building, order {order}."),
        ("neg_company", False, "Amount debited by {company} twice, transaction ref {order}."),
        ("neg_month", True, "my emi was deducted in {month} but still it is showing pending"),
        ("neg_job_title", False, "Please escalate to the branch manager, complaint id {order}."),
        ("neg_common_word", True, "sir happy to help you today is there anything else regarding {brand}"),
        ("neg_place", True, "i am calling from {city} and network is very poor since morning"),
        ("neg_capitalised", False, "Noted. Request Raised For Refund, ticket {order}."),
        ("neg_brand", True, "the {brand} showroom people told me to call this number"),
        ("neg_street", True, "my shop is on {street} near the petrol pump"),
        ("neg_month", False, "Lucky draw results will be declared in {month}, kindly wait."),
    ],
    "de-DE": [
        ("neg_place", False, "Gibt es eine Filiale in {city}? Ich würde das Gerät gern persönlich abgeben."),
        ("neg_street", False, "Das Paket ging an die Adresse {street} 12, dort wohne ich aber nicht mehr."),
        ("neg_company", False, "{company} hat den Betrag doppelt abgebucht, Vorgangsnummer {order}."),
        ("neg_month", True, "seit {month} ist meine rechnung fast doppelt so hoch"),
        ("neg_brand", False, "Mein {brand}-Gerät ist im {month} kaputtgegangen, gilt da noch die Garantie?"),
        ("neg_job_title", False, "Ich möchte bitte den Teamleiter oder die Filialleiterin sprechen, Auftrag {order}."),
        ("neg_common_word", True, "der techniker kommt im {month} und bringt einen neuen router mit"),
        ("neg_capitalised", False, "Vielen Dank! Status: In Bearbeitung seit {month}."),
        ("neg_place", True, "ich bin gerade in {city} und habe hier überhaupt kein netz"),
        ("neg_street", True, "der zusteller war in der {street} aber hat nicht geklingelt"),
        ("neg_brand", True, "ich habe den {brand} gutschein noch nicht eingelöst"),
        ("neg_product", False, "Die Fritzbox startet ständig neu, Kundennummer {order}."),
    ],
    "fr-FR": [
        ("neg_place", False, "Avez-vous une boutique à {city} ? Je préfère rapporter l'article moi-même."),
        ("neg_street", False, "Le colis a été livré au 12 {street}, mais je n'habite plus là."),
        ("neg_company", False, "{company} m'a prélevé deux fois, référence {order}."),
        ("neg_month", True, "depuis {month} ma facture a presque doublé"),
        ("neg_brand", False, "Ma {brand} est en panne depuis {month}, est-elle encore sous garantie ?"),
        (
            "neg_job_title",
            False,
            "Je souhaite parler au responsable du service ou au directeur d'agence, dossier {order}.",
        ),
        ("neg_common_word", False, "La table en pierre commandée en {month} est arrivée fendue."),
        ("neg_capitalised", False, "Merci ! Statut : En Cours De Traitement depuis {month}."),
        ("neg_place", True, "je suis à {city} en ce moment et je n'ai pas de réseau"),
        ("neg_street", True, "le technicien est passé {street} mais personne ne lui a ouvert"),
        ("neg_brand", True, "ma {brand} fait un bruit bizarre depuis ce matin"),
        ("neg_product", False, "La Livebox clignote en rouge, numéro client {order}."),
    ],
    "es-ES": [
        ("neg_place", False, "¿Tienen tienda en {city}? Prefiero devolverlo en persona."),
        ("neg_street", False, "El paquete figura como entregado en la {street}, pero ya no vivo allí."),
        ("neg_company", False, "{company} me ha cobrado dos veces, referencia {order}."),
        ("neg_month", True, "desde {month} la factura me viene casi el doble"),
        ("neg_brand", False, "Compré la chaqueta en {brand} en {month} y ya se ha roto la cremallera."),
        ("neg_job_title", False, "Quiero hablar con el encargado o con la jefa de tienda, pedido {order}."),
        ("neg_common_word", False, "La luz del router está en rosa desde {month}, ¿es normal?"),
        ("neg_capitalised", False, "¡Gracias! Estado: En Trámite desde {month}."),
        ("neg_place", True, "ahora mismo estoy en {city} y no tengo nada de cobertura"),
        ("neg_street", True, "el técnico fue a la {street} pero no había nadie"),
        ("neg_brand", True, "tengo un vale de {brand} que no me deja usar"),
        ("neg_common_word", False, "Necesito paz y una solución: el pedido {order} sigue sin llegar."),
    ],
    "zh-CN": [
        ("neg_place", False, "我在{city}附近的营业厅办的卡，能在这边补办吗？"),
        ("neg_company", True, "我想问一下{company}的发票什么时候能开"),
        ("neg_brand", False, "{brand}的旗舰店说这个型号已经停产了。"),
        ("neg_street", False, "快递显示送到了{street}，但是我已经搬家了。"),
        ("neg_month", True, "{month}的账单比平时多了五十块钱"),
        ("neg_job_title", False, "订单号{order}，客服经理说三天内处理。"),
        ("neg_place", True, "请问{city}有没有线下门店"),
        ("neg_job_title", True, "好的那我先帮您升级给主管预计{month}底之前处理"),
        ("neg_street", False, "师傅说{street}那边今天停电，明天再上门。"),
        ("neg_brand", True, "{brand}的售后电话一直打不通"),
        ("neg_place", False, "明天我要去{city}出差，包裹能先放在驿站吗？"),
        ("neg_month", False, "我买的{brand}手机在{month}就坏了。"),
    ],
    "hi-IN": [
        ("neg_place", False, "क्या {city} में आपका कोई सर्विस सेंटर है?"),
        ("neg_brand", False, "मैंने {month} में {brand} का सामान खरीदा था, वारंटी कार्ड खो गया है।"),
        ("neg_street", True, "कूरियर वाला {street} तक आया लेकिन दुकान नहीं मिली"),
        ("neg_company", False, "{company} ने दो बार पैसे काट लिए, रेफरेंस {order}"),
        ("neg_month", True, "{month} से मेरा बिल बहुत ज़्यादा आ रहा है"),
        ("neg_job_title", False, "कृपया मेरी बात मैनेजर साहब से करवाइए, शिकायत नंबर {order}"),
        ("neg_common_word", True, "आशा है कि {month} तक आपकी समस्या हल हो जाएगी"),
        ("neg_place", True, "मैं अभी {city} में हूँ और यहाँ नेटवर्क बिल्कुल नहीं है"),
        ("neg_roman", False, "Sir {city} wale store mein replacement nahi mil raha, order {order}."),
        ("neg_roman", True, "haan ji {brand} ka showroom band tha isliye call kiya"),
        ("neg_common_word", False, "सूरज ढलने के बाद {street} इलाके में बिजली चली जाती है।"),
        ("neg_brand", True, "{brand} की दुकान वाले ने यह नंबर दिया था"),
    ],
}

# Slot values for the negatives: real places and streets (several named after people), brands, months.
NEG_VALUES: dict[str, dict[str, list[str]]] = {
    "en-US": {
        "city": ["Washington", "Jackson", "Lincoln", "Houston", "Austin", "Madison", "Charlotte", "Phoenix"],
        "street": ["Washington Avenue", "Franklin Street", "Lincoln Road", "Elm Street", "Jefferson Boulevard"],
        "brand": ["Ford", "Dell", "Wendy's", "Tesla", "Ben & Jerry's", "Hilton"],
        "month": ["January", "March", "May", "June", "August", "November"],
    },
    "en-GB": {
        "city": ["Reading", "Bath", "Sheffield", "St Albans", "Hastings", "Stratford"],
        "street": ["Victoria Road", "Albert Street", "Churchill Way", "Nelson Street", "Kings Road"],
        "brand": ["John Lewis", "Marks & Spencer", "Sainsbury's", "Boots", "Argos", "Dyson"],
        "month": ["January", "April", "May", "June", "August", "December"],
    },
    "en-IN": {
        "city": ["Indiranagar", "Gandhinagar", "Nehru Place", "Pune", "Ahmedabad", "Rajiv Chowk"],
        "street": ["MG Road", "Nehru Road", "Linking Road", "Tilak Marg", "Park Street"],
        "brand": ["Tata", "Bajaj", "Mahindra", "Godrej", "Videocon", "Haldiram's"],
        "company": ["Reliance Retail Ltd", "Bharti Airtel", "Infosys", "Paytm", "Zomato", "Tata Sky"],
        "month": ["January", "March", "May", "June", "August", "October"],
    },
    "de-DE": {
        "city": ["Essen", "Hamm", "Halle", "Kiel", "Marburg", "Bergisch Gladbach"],
        "street": ["Goethestraße", "Schillerstraße", "Bismarckallee", "Kaiser-Wilhelm-Straße", "Lindengasse"],
        "brand": ["Miele", "Bosch", "AEG", "Siemens", "Grundig", "Braun"],
        "month": ["Januar", "März", "Mai", "August", "Oktober", "Dezember"],
    },
    "fr-FR": {
        "city": ["Nancy", "Saint-Étienne", "Lourdes", "Valence", "Albi", "Aix-en-Provence"],
        "street": ["rue Victor-Hugo", "avenue Jean-Jaurès", "boulevard Haussmann", "place Charles-de-Gaulle"],
        "brand": ["Renault", "Peugeot", "Citroën", "Dacia", "Alpine", "Simca"],
        "month": ["janvier", "mars", "mai", "juillet", "août", "novembre"],
    },
    "es-ES": {
        "city": ["San Sebastián", "Santander", "León", "Valencia", "Teruel", "Santiago de Compostela"],
        "street": [
            "calle de Alcalá",
            "avenida de Blasco Ibáñez",
            "plaza de Cervantes",
            "calle Mayor",
            "calle de Isabel la Católica",
        ],
        "brand": ["Zara", "Mango", "El Corte Inglés", "Massimo Dutti", "Pull&Bear", "Desigual"],
        "month": ["enero", "marzo", "mayo", "julio", "agosto", "diciembre"],
    },
    "zh-CN": {
        "city": ["王府井", "张家界", "李沧区", "黄山", "周庄", "徐家汇"],
        "street": ["中山路", "解放大道", "人民路", "建国门外大街", "南京东路"],
        "brand": ["李宁", "华为", "小米", "王老吉", "周大福", "张小泉"],
        "month": ["一月", "三月", "五月", "七月", "十月", "十二月"],
    },
    "hi-IN": {
        "city": ["गांधीनगर", "नेहरू प्लेस", "इंदिरापुरम", "सागर", "लक्ष्मी नगर", "राजीव चौक"],
        "street": ["एमजी रोड", "तिलक मार्ग", "सुभाष चौक", "पटेल नगर", "गांधी मार्ग"],
        "brand": ["टाटा", "बजाज", "महिंद्रा", "गोदरेज", "अमूल", "हल्दीराम"],
        "company": ["रिलायंस जियो", "एयरटेल", "पेटीएम", "फ्लिपकार्ट", "बजाज फाइनेंस", "टाटा स्काई"],
        "month": ["जनवरी", "मार्च", "मई", "जुलाई", "अगस्त", "दिसंबर"],
    },
}
ROMAN_NEG = {
    "city": ["Gandhinagar", "Lajpat Nagar", "Indirapuram", "Sagar"],
    "brand": ["Tata", "Bajaj", "Godrej", "Amul"],
}


def _ascii(text: str) -> str:
    """Letters of `text` without accents, for e-mail local parts."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if c.isascii() and c.isalnum()).lower()


def _phone(rng: random.Random, region: str) -> str:
    """A number in a local shape that libphonenumber calls valid for `region`."""
    for _ in range(1000):
        shape = rng.choice(PHONE_SHAPES[region])
        number = "".join(str(rng.randrange(10)) if c == "X" else c for c in shape)
        if phonenumbers.is_valid_number(phonenumbers.parse(number, region)):
            return number
    raise RuntimeError(f"no valid {region} number drawn")


def _spoken(number: str) -> str:
    """The digits of a phone number as an ASR transcript writes them."""
    return " ".join(DIGIT_WORDS[int(c)] for c in number if c.isdigit())


def _spell(surname: str) -> str:
    return " ".join(c for c in surname.lower() if c.isalpha())


class _People:
    """Distinct (given, surname) pairs from one Faker locale; a name is never drawn twice in a build."""

    def __init__(self, locale: str) -> None:
        self.fake = Faker(locale)
        self.fake.seed_instance(SEED)
        self.used: set[tuple[str, str]] = set()

    def draw(self, gender: str = "") -> tuple[str, str]:
        """A new pair; `gender` "female" or "male" where the sentence around the name is gendered."""
        given = {"female": self.fake.first_name_female, "male": self.fake.first_name_male}.get(gender)
        while True:
            pair = ((given or self.fake.first_name)(), self.fake.last_name())
            if pair not in self.used and " " not in pair[1]:
                self.used.add(pair)
                return pair


def _full(locale: str, given: str, surname: str) -> str:
    return surname + given if locale == "zh-CN" else f"{given} {surname}"


def _name_values(locale: str, people: dict[str, _People], rng: random.Random, k: int) -> dict[str, str]:
    """Every name slot's value for rendering `k` of a template."""
    (f1, l1), (f2, l2), (f3, l3) = (people[LOCALES[locale][0]].draw() for _ in range(3))
    v = {
        "full": _full(locale, f1, l1),
        "first": f1,
        "last": l1,
        "full2": _full(locale, f2, l2),
        "first2": f2,
        "last2": l2,
        "full3": _full(locale, f3, l3),
        "spell": _spell(l1),
        "inv": f"{l1}, {f1}",
        "upper": f"{l1.upper()} {f1}",
        "double": f"{f1} {l1} {l2}",
        "init": f"{f1[0]}. {l1}",
        "hyph": f"{f1} {l1} {l2}" if locale == "es-ES" else f"{f1} {l1}-{l2}",
        "word": WORD_NAMES[locale][k % len(WORD_NAMES[locale])],
    }
    (ff, fl), (mf, ml) = people[LOCALES[locale][0]].draw("female"), people[LOCALES[locale][0]].draw("male")
    v |= {"ffull": _full(locale, ff, fl), "ffirst": ff, "mfull": _full(locale, mf, ml), "mfirst": mf}
    if locale in PARTICLES:
        v["part"] = f"{f1} {rng.choice(PARTICLES[locale])} {l1}"
    if locale in ROMAN:
        (rf1, rl1), (rf2, rl2) = (people[ROMAN[locale]].draw() for _ in range(2))
        rmf, rml = people[ROMAN[locale]].draw("male")
        v |= {"rfull": f"{rf1} {rl1}", "rfirst": rf1, "rlast": rl1, "rfull2": f"{rf2} {rl2}", "rspell": _spell(rl1)}
        v["rmfull"] = f"{rmf} {rml}"
    return v


def _render(template: str, values: dict[str, tuple[str, str | None]]) -> tuple[str, list[dict]]:
    """The text with its slots filled, and a span for each typed slot."""
    text, spans, pos = "", [], 0
    for m in SLOT.finditer(template):
        text += template[pos : m.start()]
        value, kind = values[m.group(1)]
        if kind is not None:
            spans.append({"start": len(text), "end": len(text) + len(value), "type": kind})
        text += value
        pos = m.end()
    text += template[pos:]
    for s, (value, _) in zip(spans, (values[n] for n in SLOT.findall(template) if values[n][1]), strict=True):
        assert text[s["start"] : s["end"]] == value, (template, s)
    return text, spans


def _positive(locale: str, people, rng: random.Random, asr: bool, template: str, k: int):
    region = LOCALES[locale][1]
    names = _name_values(locale, people, rng, k)
    values: dict[str, tuple[str, str | None]] = {
        n: (v.lower() if asr else v, "person_name") for n, v in names.items() if n in NAME_SLOTS
    }
    phone = _phone(rng, region)
    values["phone"] = (_spoken(phone) if asr else phone, "phone")
    fake = people[ROMAN.get(locale, LOCALES[locale][0])].fake
    first, last = (names["rfirst"], names["rlast"]) if locale in ROMAN else (names["first"], names["last"])
    user = f"{_ascii(first)}.{_ascii(last)}" if _ascii(first) and _ascii(last) else fake.user_name()
    values["email"] = (f"{user}@{fake.free_email_domain()}", "email")
    return _render(template, values)


def _company(fake: Faker) -> str:
    """A Faker company name with a legal form, never a bare surname or a list of them (those read as people)."""
    for _ in range(1000):
        name = fake.company()
        if LEGAL_FORM.search(name) and "," not in name and not re.search(r" (and|und|et|y) ", name):
            return name
    raise RuntimeError("no company name with a legal form drawn")


def _negative(locale: str, people, rng: random.Random, shape: str, asr: bool, template: str):
    pools = NEG_VALUES[locale] | (ROMAN_NEG if shape == "neg_roman" else {})
    values: dict[str, tuple[str, str | None]] = {n: (rng.choice(p), None) for n, p in pools.items()}
    if "company" not in pools:
        values["company"] = (_company(people[LOCALES[locale][0]].fake), None)
    values["order"] = (f"{rng.choice('ABCDKR')}{rng.randrange(10**5, 10**6)}", None)
    if asr:
        values = {n: (v.lower(), t) for n, (v, t) in values.items()}
    return _render(template, values)


def _names(text: str, spans: list[dict]) -> tuple[str, ...]:
    return tuple(text[s["start"] : s["end"]] for s in spans if s["type"] == "person_name")


def build() -> list[dict]:
    """All rows, in a fixed order; the same list on every call."""
    rng = random.Random(SEED)
    people = {fl: _People(fl) for fl in {fl for fl, _ in LOCALES.values()} | set(ROMAN.values())}
    rows: list[dict] = []
    for locale in LOCALES:
        n = 0
        for shape, asr, template in POS[locale]:
            named: set[tuple[str, ...]] = set()
            for k in range(RENDERINGS):
                text, spans = _positive(locale, people, rng, asr, template, k)
                while _names(text, spans) in named:  # a surname-only slot can repeat (few Han surnames)
                    text, spans = _positive(locale, people, rng, asr, template, k)
                named.add(_names(text, spans))
                rows.append(
                    {
                        "id": f"{locale}-h{n:03d}",
                        "locale": locale,
                        "text": text,
                        "spans": spans,
                        "asr": asr,
                        "split": "fresh3",
                        "shape": shape,
                    }
                )
                n += 1
        for shape, asr, template in NEG[locale]:
            seen: set[str] = set()
            for _ in range(NEG_RENDERINGS):
                text, spans = _negative(locale, people, rng, shape, asr, template)
                while text in seen:
                    text, spans = _negative(locale, people, rng, shape, asr, template)
                seen.add(text)
                rows.append(
                    {
                        "id": f"{locale}-h{n:03d}",
                        "locale": locale,
                        "text": text,
                        "spans": spans,
                        "asr": asr,
                        "split": "fresh3",
                        "shape": shape,
                    }
                )
                n += 1
    for row in rows:
        assert not (row["asr"] and (row["text"] != row["text"].lower() or ASR_FORBIDDEN.search(row["text"]))), row
    return rows


def main() -> None:
    rows = build()
    with open(OUT, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} rows -> {OUT}")


if __name__ == "__main__":
    main()
