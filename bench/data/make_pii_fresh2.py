"""Write bench/data/pii_fresh2.jsonl: a second independent person-name evaluation set, `fresh2`.

How it was made: the templates below were written by a hand that did not open the recognizers, their cue
lists, the locale packs or the other evaluation sets and their generators (only the first three rows of
pii_fresh.jsonl, for the row format, and bench_privacy.py, for how rows are scored). They imitate how real
support chats, call-centre ASR transcripts (lower case, no punctuation, numbers as words) and support
tickets mention people: greetings, hand-offs, verification, third parties, signatures, e-mail sign-offs,
form fields, surnames spelled letter by letter, names deep inside long sentences, lists, particles (van,
de, bin, O'), hyphenated and double surnames, Han-character and Devanagari names, romanised Hindi. Names
come from Faker (seed 777, the pack's Faker locale) plus a few names that are ordinary words; every
positive wording is rendered RENDERINGS times with different names. Hard negatives (places, brands,
products, months, given names used as common words, job titles, capitalised sentence starts, streets,
companies and landmarks carrying surnames) carry no span; those that carry a whole eponym's name (a brand
or a place named after a person, "Louis Vuitton", "rue Victor Hugo", "李宁") have shapes `neg_eponym_*`, so
a reader can tell them apart. A few phones (checked with phonenumbers.is_valid_number) and e-mails are
labelled where a real turn would have them.

Titles ("Mr", "Dr.", "Frau", "M.", "señora", "श्री", "先生", "ji") lie outside the name span.

The set must be read once, in bench_privacy (`fresh2/` rows), and never tuned on: a recognizer change made
because of a miss here makes the set worthless as an independent check.

    python bench/data/make_pii_fresh2.py
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import phonenumbers
from faker import Faker

SEED = 777
RENDERINGS = 3
OUT = Path(__file__).with_name("pii_fresh2.jsonl")

# pack -> (Faker locale, phone region)
LOCALES: dict[str, tuple[str, str]] = {
    "en-US": ("en_US", "US"),
    "en-GB": ("en_GB", "GB"),
    "en-IN": ("en_IN", "IN"),
    "de-DE": ("de_DE", "DE"),
    "fr-FR": ("fr_FR", "FR"),
    "es-ES": ("es_ES", "ES"),
    "zh-CN": ("zh_CN", "CN"),
    "hi-IN": ("hi_IN", "IN"),
}

# Names that are also ordinary words, written by hand (a recognizer that only knows the word misses them).
WORD_NAMES: dict[str, list[str]] = {
    "en-US": ["Will Cook", "Mark Price", "Hope Summers", "Frank Rich", "Grace Church", "Amber Stone"],
    "en-GB": ["Holly Green", "Bill Fisher", "Ruby Mason", "Joy Taylor", "Hazel Wood", "Dawn Baker"],
    "en-IN": ["Sunny Singh", "Lucky Sharma", "Pinky Gupta", "Honey Arora", "Sweety Das", "Happy Kaur"],
    "de-DE": ["Ernst Koch", "Frank Bauer", "Rosa Schmidt", "Heide Fischer", "Ernst Becker", "Rosa Wolf"],
    "fr-FR": [
        "Pierre Boulanger",
        "Claire Fontaine",
        "Rose Marchand",
        "Constant Lefèvre",
        "Blanche Petit",
        "Olive Meunier",
    ],
    "es-ES": ["Rosa Blanco", "Dolores Fuentes", "Pilar Campos", "Luz Moreno", "Mercedes Rubio", "Soledad Prieto"],
    "zh-CN": ["王平安", "李建国", "张国庆", "刘春华", "陈红梅", "杨秋菊"],
    "hi-IN": ["आशा वर्मा", "किरण शर्मा", "पूजा सिंह", "दीपक गुप्ता", "विजय कुमार", "रोशनी यादव"],
}

# Surnames with a particle, written by hand (Faker's lists hold few); the particle is part of the name span.
PARTICLE_SURNAMES: dict[str, list[str]] = {
    "en-US": [
        "O'Brien",
        "McCarthy",
        "O'Connor",
        "McKenzie",
        "O'Neill",
        "McGrath",
        "O'Sullivan",
        "McBride",
        "de la Cruz",
    ],
    "de-DE": [
        "von Bülow",
        "von der Heide",
        "van der Berg",
        "von Stein",
        "zu Putlitz",
        "van Dyk",
        "von Arnim",
        "von der Lippe",
        "van Beek",
    ],
    "fr-FR": [
        "de Villiers",
        "de La Fontaine",
        "d'Albret",
        "de Montfort",
        "du Pont",
        "de Lattre",
        "de Rochefort",
        "d'Aubigné",
        "du Bellay",
    ],
    "es-ES": [
        "de la Fuente",
        "del Río",
        "de la Cruz",
        "del Castillo",
        "de los Santos",
        "de la Torre",
        "del Valle",
        "de la Vega",
        "del Pino",
    ],
}
BIN_GIVEN = ["Ahmad", "Yusuf", "Hakim", "Faris", "Idris", "Omar", "Rashid", "Zaid", "Hamza"]
BIN_FATHER = ["Ismail", "Abdullah", "Hamid", "Rahman", "Osman", "Salleh", "Yaakub", "Karim", "Hashim"]

DIGIT_WORDS = {
    "en-US": "zero one two three four five six seven eight nine".split(),
    "en-GB": "oh one two three four five six seven eight nine".split(),
    "en-IN": "zero one two three four five six seven eight nine".split(),
}

# (shape, template). Slots: full/fullf/fullm, first/firstf/firstm, last, initial, particle, compound,
# spelled (the letters of this rendering's {last}), word, roman/romanf/romanm (romanised Hindi), phone,
# phone_words, email; every slot is a new draw, a trailing digit only tells a template's slots apart.
# "asr_" in the shape means an ASR transcript: names are inserted in lower case.
POS: dict[str, list[tuple[str, str]]] = {
    "en-US": [
        (
            "chat_greeting",
            "Hi there, my name is {full} and I haven't been able to log into my account since yesterday.",
        ),
        (
            "chat_handoff",
            "Thanks for waiting! I'm transferring you to {firstf} from our billing team, she'll take it from here.",
        ),
        ("chat_verify", "Sure, the account is under {full}, and the email on file should be {email}."),
        (
            "chat_third_party",
            "My husband {firstm} called you on Monday about the same charge and nobody got back to him.",
        ),
        ("ticket_signature", "The replacement still hasn't arrived. Please advise.\n\nBest regards,\n{full}"),
        ("email_signoff", "Thanks so much for sorting this out so quickly!\n\nCheers,\n{first}"),
        ("form_field", "Name: {full}\nPhone: {phone}\nIssue: router keeps dropping the connection"),
        (
            "title_surname",
            "I spoke with Dr. {last} last week and he said the prescription would be sent over to this pharmacy.",
        ),
        (
            "initial_surname",
            "Tracking says the package was signed for by {initial} at the front desk, but nobody here has it.",
        ),
        (
            "long_sentence",
            "I already explained all of this twice, first on the phone and then by email, and the "
            "person I talked to, I think her name was {fullf}, promised a refund within five "
            "business days, which obviously never happened.",
        ),
        ("name_list", "Please add {full}, {full2} and {full3} as authorized users on the business plan."),
        ("particle", "The card belongs to my father, {particle}, and he's okay with me calling about it."),
        ("compound", "Hi, it's {compound} again, following up on the ticket I opened on Friday."),
        ("word_name", "Hello, {word} here, the driver left my package at the wrong house."),
        ("asr_greeting", "hi yeah this is {full} i'm calling about the bill i got on the twelfth"),
        ("asr_spelled", "the last name is {last} that's {spelled}"),
        ("asr_verify", "okay and the account holder's name please yeah it's under {full}"),
        ("asr_handoff", "let me put you through to my colleague {firstf} she handles all the returns"),
        ("asr_phone", "it's {full} and the best number to reach me is {phone_words}"),
        ("asr_word_name", "yeah hi it's {word} again about the refund"),
    ],
    "en-GB": [
        ("chat_greeting", "Hiya, {full} here - I've been charged twice for my March direct debit."),
        ("chat_verify", "Yes, the account holder is Mrs {fullf}, she's my mum and she's sat next to me."),
        ("chat_third_party", "My neighbour, {full}, took the parcel in but says the box was already opened."),
        ("ticket_signature", "I would appreciate a reply this week.\n\nKind regards,\n{full}\nFlat 3, Rosebank House"),
        ("email_signoff", "Thanks again for your help.\n\nAll the best,\n{first}"),
        ("form_field", "Full name: {full}\nContact number: {phone}\nReason for contact: boiler service booking"),
        ("title_surname", "I've been waiting for Mr {last} to ring me back since Tuesday."),
        ("particle", "The booking was made by {particle} on behalf of the whole family."),
        ("compound", "Please update the name on my account to {compound}, I got married in the summer."),
        ("name_list", "The people on the policy are {full}, {full2} and my son {firstm3}."),
        (
            "long_sentence",
            "When the engineer came out on Thursday he said the fault was on the line outside "
            "and that someone called {full} from the network side would be in touch, but nobody "
            "ever has.",
        ),
        ("initial_surname", "The delivery note says it was signed for by {initial}, which isn't anyone in our house."),
        ("word_name", "{word} speaking, I rang earlier about the cracked screen."),
        ("asr_greeting", "good morning you're through to {firstf} at customer services how can i help"),
        ("asr_verify", "the account's in my wife's name so it'll be under {fullf}"),
        ("asr_spelled", "and the surname's {last} {spelled}"),
        ("asr_handoff", "i'm going to pass you over to {first} in the complaints team bear with me"),
        ("asr_phone", "my name's {full} and the number is {phone_words}"),
        ("asr_word_name", "hello it's {word} i'm ringing about my order"),
    ],
    "en-IN": [
        ("chat_greeting", "Hello, I am {full}, my order is showing delivered but I have not received it."),
        ("chat_verify", "Account holder name is {full} only, please check once."),
        ("chat_third_party", "My father-in-law {fullm} had booked the tickets, he is not able to come on the call."),
        ("title_surname", "Kindly connect me to Mr. {last} from the loan department."),
        ("honorific_ji", "{last} ji had told me that the EMI would be cancelled from this month."),
        ("form_field", "Customer Name: {full}\nMobile: {phone}\nEmail: {email}\nComplaint: AC not cooling"),
        ("ticket_signature", "Please do the needful at the earliest.\n\nThanks & Regards,\n{full}"),
        ("name_list", "Passengers: {full}, {full2}, {full3}."),
        (
            "long_sentence",
            "Since last Diwali I have been trying to get this warranty claim processed and every "
            "time someone new picks up, yesterday it was {full}, and again they told me to wait "
            "forty-eight hours.",
        ),
        ("initial_surname", "The cheque was issued in the name of {initial} but my bank is not accepting it."),
        ("word_name", "Hi, this is {word}, I had raised a complaint regarding the gas cylinder."),
        ("asr_greeting", "hello madam myself {full} calling from pune regarding my refund"),
        ("asr_spelled", "my surname is {last} spelling {spelled}"),
        ("asr_handoff", "i am transferring your call to my senior {first} please hold the line"),
        ("asr_verify", "the policy is in the name of my mother {fullf}"),
        ("asr_phone", "this is {full} and my alternate number is {phone_words}"),
        ("asr_honorific", "yes sir {last} ji from your side only called me on saturday"),
        ("asr_word_name", "hello this is {word} speaking from kolkata"),
    ],
    "de-DE": [
        ("chat_greeting", "Hallo, hier ist {full}. Meine Bestellung ist seit zwei Wochen unterwegs."),
        ("chat_verify", "Der Vertrag läuft auf {full}, die Kundennummer habe ich gerade nicht zur Hand."),
        ("title_surname", "Ich hatte gestern schon mit Frau {last} telefoniert, sie wollte mich zurückrufen."),
        ("title_surname2", "Herr Dr. {last} hat das Rezept bereits freigegeben."),
        ("chat_third_party", "Meine Frau {firstf} hat letzte Woche schon angerufen, aber es ist nichts passiert."),
        ("ticket_signature", "Vielen Dank im Voraus.\n\nMit freundlichen Grüßen\n{full}"),
        ("email_signoff", "Danke und viele Grüße\n{first}"),
        ("form_field", "Name: {full}\nTelefon: {phone}\nAnliegen: Router blinkt rot"),
        ("particle", "Das Konto gehört {particle}, ich bin seine Tochter."),
        ("compound", "Bitte ändern Sie den Namen im Kundenkonto auf {compound}, ich habe geheiratet."),
        ("name_list", "Zugriff auf das Firmenkonto sollen {full}, {full2} und {full3} bekommen."),
        (
            "long_sentence",
            "Nachdem ich im Juni umgezogen bin und den Zählerstand schon zweimal durchgegeben "
            "habe, hat mir ein Herr namens {fullm} am Telefon versichert, dass alles erledigt sei, "
            "trotzdem kam wieder eine Mahnung.",
        ),
        ("word_name", "{word} am Apparat, ich hatte wegen der Gutschrift geschrieben."),
        ("asr_greeting", "guten tag mein name ist {full} ich rufe wegen meiner stromrechnung an"),
        ("asr_spelled", "der nachname ist {last} also {spelled}"),
        ("asr_handoff", "ich verbinde sie jetzt mit meiner kollegin {firstf} aus der technik"),
        ("asr_verify", "ja der vertrag läuft auf meinen mann {fullm}"),
        ("asr_word_name", "hallo hier ist {word} ich hätte eine frage zur rechnung"),
    ],
    "fr-FR": [
        ("chat_greeting", "Bonjour, je suis {full}, je n'arrive pas à activer ma carte SIM."),
        ("chat_verify", "Le compte est au nom de {full}, c'est bien mon adresse habituelle."),
        ("title_surname", "J'ai eu Madame {last} au téléphone hier, elle devait me rappeler."),
        ("title_surname2", "M. {last} m'a dit que le technicien passerait jeudi."),
        ("chat_third_party", "Ma fille {firstf} a passé la commande sur mon compte sans me prévenir."),
        ("ticket_signature", "Merci d'avance pour votre retour.\n\nCordialement,\n{full}"),
        ("email_signoff", "Bonne journée,\n{first}"),
        ("form_field", "Nom : {full}\nTéléphone : {phone}\nE-mail : {email}"),
        ("particle", "Le contrat est au nom de mon grand-père, {particle}."),
        ("compound", "Pouvez-vous corriger le nom sur la facture ? C'est {compound}, avec un trait d'union."),
        ("name_list", "Les personnes autorisées sur la ligne sont {full}, {full2} et {full3}."),
        (
            "long_sentence",
            "Depuis le déménagement en septembre j'ai appelé quatre fois, la dernière fois c'est "
            "{full} qui m'a répondu et m'a promis un geste commercial, mais toujours rien sur la "
            "facture.",
        ),
        ("word_name", "C'est {word}, je vous ai écrit hier au sujet du remboursement."),
        ("asr_greeting", "oui bonjour c'est {full} j'appelle pour ma facture du mois dernier"),
        ("asr_spelled", "mon nom c'est {last} je vous épelle {spelled}"),
        ("asr_handoff", "je vous passe ma collègue {firstf} du service client ne quittez pas"),
        ("asr_verify", "c'est au nom de mon mari {fullm}"),
        ("asr_word_name", "allô oui c'est {word} à l'appareil"),
    ],
    "es-ES": [
        ("chat_greeting", "Hola, soy {full} y me han cobrado dos veces la última factura."),
        ("chat_verify", "La cuenta está a nombre de {fullm}, el titular es mi padre."),
        ("title_surname", "Ayer hablé con la señora {last} y me dijo que me llamarían hoy."),
        ("title_surname2", "El Sr. {last} ya autorizó la devolución, pueden comprobarlo."),
        ("chat_third_party", "Mi mujer, {firstf}, llamó el lunes y nadie le dio una solución."),
        ("ticket_signature", "Quedo a la espera de su respuesta.\n\nUn saludo,\n{full}"),
        ("email_signoff", "Gracias,\n{first}"),
        ("form_field", "Nombre: {full}\nTeléfono: {phone}\nMotivo: baja del servicio"),
        ("particle", "La reserva está a nombre de {particle}."),
        ("compound", "Mi nombre completo es {compound}, con los dos apellidos."),
        ("name_list", "Los viajeros son {full}, {full2} y {full3}."),
        (
            "long_sentence",
            "Después de esperar toda la mañana en casa porque me dijeron que el técnico vendría "
            "entre las nueve y las dos, me llamó un tal {fullm} para decir que lo cambiaban al "
            "jueves sin más explicación.",
        ),
        ("word_name", "Soy {word}, les escribí ayer por el pedido."),
        ("asr_greeting", "sí buenas tardes soy {full} le llamo por lo del router que no funciona"),
        ("asr_spelled", "el apellido es {last} se escribe {spelled}"),
        ("asr_handoff", "le paso con mi compañero {firstm} del departamento técnico un momento"),
        ("asr_verify", "está a nombre de mi marido {fullm}"),
        ("asr_word_name", "hola soy {word} llamaba por la factura"),
    ],
    "zh-CN": [
        ("chat_greeting", "你好，我是{full}，我的快递显示已签收但我没收到。"),
        ("chat_verify", "账户持有人是{full}，手机号是{phone}。"),
        ("form_field", "姓名：{full}\n电话：{phone}\n问题：宽带无法连接"),
        ("title_surname", "昨天{last}先生说今天会给我回电话。"),
        ("title_surname2", "请帮我转给{last}经理，之前一直是她负责的。"),
        ("bare_after_verb", "我昨天已经联系过{full}了，他说要等三天。"),
        ("bare_after_prep", "这个订单是替{full}下的，麻烦改一下地址。"),
        ("bare_after_verb2", "请把发票直接寄给{full}。"),
        ("chat_third_party", "我老公{fullm}上周打过电话了，一直没人处理。"),
        ("ticket_signature", "谢谢！\n{full}"),
        ("name_list", "参会人员：{full}、{full2}、{full3}。"),
        (
            "long_sentence",
            "我从上个月开始就一直在投诉这个问题，每次客服都说会有专人跟进，上周终于有一个叫{full}的"
            "工作人员打电话过来，结果还是没有解决。",
        ),
        ("word_name", "{word}已经把钱转过去了，你们查一下。"),
        ("asr_greeting", "喂你好我是{full}我想问一下退款的事情"),
        ("asr_handoff", "好的我帮您转接到我的同事{full}请稍等"),
        ("asr_verify", "这个账户是在我妈妈{fullf}名下的"),
        ("asr_bare", "上次跟{full}说好了下周一来修"),
        ("asr_word_name", "我是{word}我的快递到哪了"),
    ],
    "hi-IN": [
        ("agent_intro", "नमस्ते, मैं {fullf} बोल रही हूँ, बताइए मैं आपकी क्या मदद कर सकती हूँ?"),
        ("chat_greeting", "नमस्ते, मेरा नाम {full} है और मेरा रिफंड अभी तक नहीं आया।"),
        ("chat_verify", "खाता {full} के नाम पर है।"),
        ("title_name", "श्री {fullm} ने कल फ़ोन किया था, उनका काम हुआ या नहीं?"),
        ("honorific_ji", "{last} जी ने बोला था कि पैसे वापस आ जाएंगे।"),
        ("chat_third_party", "मेरी पत्नी {firstf} ने पिछले हफ्ते शिकायत दर्ज की थी।"),
        ("form_field", "नाम: {full}\nमोबाइल: {phone}\nशिकायत: इंटरनेट बंद है"),
        ("chat_handoff", "मैं आपकी कॉल अपने सीनियर {firstm} को ट्रांसफर कर रही हूँ।"),
        ("name_list", "यात्री: {full}, {full2} और {full3}।"),
        (
            "long_sentence",
            "पिछले महीने से मैं लगातार कॉल कर रहा हूँ और हर बार कोई नया व्यक्ति बात करता है, कल "
            "{fullf} नाम की एक मैडम ने कहा कि दो दिन में काम हो जाएगा लेकिन कुछ नहीं हुआ।",
        ),
        ("word_name", "{word} ने पैसे भेज दिए हैं, आप चेक कर लीजिए।"),
        ("asr_greeting", "हाँ जी मैं {fullm} बोल रहा हूँ मेरा बिल गलत आया है"),
        ("roman_greeting", "Hello, main {romanm} bol raha hoon, mera order cancel kar dijiye."),
        ("roman_signature", "Please jaldi resolve kijiye.\n\nRegards,\n{roman}"),
        ("asr_roman_greeting", "haan ji madam mera naam {romanm} hai main delhi se bol raha hoon"),
        ("asr_roman_verify", "account {roman} ke naam pe hai"),
        ("asr_roman_agent", "namaste main {romanf} bol rahi hoon aapki kya sahayata kar sakti hoon"),
        ("asr_word_name", "हाँ जी यह {word} का नंबर है बिल के बारे में पूछना था"),
    ],
}

NEG: dict[str, list[tuple[str, str]]] = {
    "en-US": [
        ("neg_place", "I'm driving from Austin to Charlotte this weekend, can I change the delivery to Savannah?"),
        ("neg_brand", "My Dell laptop won't pair with the Ford Sync system in my car."),
        ("neg_month", "I was billed in May and again in June, but I cancelled back in April."),
        ("neg_common_words", "I will mark the bill as paid once the check clears, to be frank."),
        ("neg_job_title", "Can I speak to a Supervisor or the Billing Manager, please?"),
        ("neg_capitalised", "Great. Perfect. Thanks so much, Everything works now."),
        ("neg_street", "The package went to Washington Avenue instead of Jefferson Street."),
        ("neg_company", "I ordered it from the Johnson & Johnson online store through Walgreens."),
        ("neg_product", "Is the Tesla charger compatible with a Lincoln Navigator?"),
        ("neg_asr_common_words", "yeah i'll just grab the bill and mark down the amount it was like forty dollars"),
        ("neg_asr_place", "i'm over in jackson right now but i actually live in madison"),
        ("neg_asr_month", "it started back in august and then again in march"),
        ("neg_holiday", "Will the Christmas sale prices apply to orders placed on Black Friday?"),
        ("neg_brand2", "I had a Wendy's gift card and a Trader Joe's receipt in the same envelope."),
        ("neg_team", "The Sales Team and Customer Success both said it was a Tier Two issue."),
        ("neg_asr_job_title", "can i talk to your manager or like a team lead or someone"),
        ("neg_food", "I ordered the Caesar salad and the Reuben but got two Margherita pizzas."),
        ("neg_place2", "We moved from Virginia to Georgia last year, so the sales tax should be different."),
        ("neg_product2", "Alexa keeps turning on the lights at night since the last update."),
        ("neg_capitalised2", "Honestly? Nobody Cares At This Point, Just Refund Me."),
        ("neg_asr_filler", "okay cool so um yeah that's pretty much it thanks"),
        ("neg_asr_brand", "my samsung phone keeps saying the apple watch is not supported"),
        ("neg_asr_month2", "may i ask if the june promo still applies"),
    ],
    "en-GB": [
        ("neg_street", "I live just off Victoria Road in Chelsea, near the old Abbey."),
        ("neg_company", "Tried Marks & Spencer, Sainsbury's and Boots, none of them had it in stock."),
        ("neg_month", "The direct debit came out on the first of May instead of the end of April."),
        ("neg_job_title", "I'll have a word with the Head of Customer Services if this isn't sorted."),
        ("neg_capitalised", "Lovely. Cheers for that, Brilliant service as always."),
        ("neg_place", "My train from Reading to Bath was cancelled, so I missed the engineer's slot."),
        ("neg_brand", "Is the Dyson still under warranty if I bought it from Currys?"),
        ("neg_asr_brand", "i'm in the queue at tesco now can i ring you back in ten minutes"),
        ("neg_asr_street", "it's the flat above the chemist on church street"),
        ("neg_asr_common_words", "to be frank i'd rather not pay the bill until it's fixed"),
        ("neg_common_words", "Every penny counts, so I'd like the full amount back, not a voucher."),
        ("neg_eponym_place", "The item was dispatched from Milton Keynes and is now stuck in Swindon."),
        ("neg_job_title2", "Could the Duty Manager or the Team Leader ring me after five?"),
        ("neg_asr_month", "they said it'd be fixed by june but now they're saying august"),
        ("neg_eponym_company", "I booked through Thomas Cook years ago, does my old account still exist?"),
        ("neg_place3", "The Jubilee line was down so I couldn't get to the Oxford Street store."),
        ("neg_colour", "Rose Gold or Space Grey, which one is actually in stock?"),
        ("neg_company3", "I paid with Apple Pay at the Harrods counter and it went through twice."),
        ("neg_asr_bank", "yeah the lloyds app says the payment went through on monday"),
        ("neg_capitalised2", "Kindly Note: Our Office Will Be Closed On Bank Holiday Monday."),
        ("neg_asr_job_title", "i spoke to a supervisor and a team leader and neither of them could help"),
        ("neg_product", "The Victoria sponge and the Bakewell tart were both squashed in the box."),
        ("neg_asr_place", "i'm calling from the branch in victoria near the coach station"),
    ],
    "en-IN": [
        ("neg_street", "I stay near MG Road in Bangalore, the delivery boy went to Whitefield."),
        ("neg_company", "My Bajaj scooter loan and Tata Sky connection are both on the same card."),
        ("neg_month", "Payment was due in March but I paid in February itself."),
        ("neg_job_title", "Kindly connect me to the Branch Manager or the Nodal Officer."),
        ("neg_place", "I ordered from the Reliance Digital store in Lajpat Nagar."),
        ("neg_asr_place", "madam i am calling from gandhinagar the parcel is still in ahmedabad hub"),
        ("neg_place2", "The Mahindra service centre near Nehru Place is not picking up calls."),
        ("neg_asr_festival", "sir the lakshmi pooja is on friday so please deliver before that"),
        ("neg_common_words", "Happy Diwali! Hope the offer is still valid."),
        ("neg_capitalised", "Please do the needful. Thanks and Regards."),
        ("neg_brand", "Is Amazon Pay or Paytm accepted for the Godrej fridge?"),
        ("neg_asr_place2", "i took the metro from rajiv chowk to kashmere gate"),
        ("neg_company2", "The Infosys campus shuttle dropped the parcel at the Electronic City gate."),
        ("neg_asr_common_words", "i will call again tomorrow morning once the bill comes"),
        ("neg_company3", "Birla Sun Life premium got deducted twice in April."),
        ("neg_capitalised2", "Sunny weather today, so the technician can come for the dish installation."),
        ("neg_job_title2", "The Chief Executive Officer and the Grievance Officer were both marked in CC."),
        ("neg_asr_brand", "amul butter and britannia biscuits were missing from the order"),
        ("neg_product", "The pooja thali and the diya set from the Diwali sale were not shipped."),
        ("neg_place3", "My Jio SIM works in Chennai but not in Coimbatore."),
        ("neg_asr_filler", "it is showing out for delivery since monday only"),
        ("neg_eponym_landmark", "We are near Sardar Patel Stadium, the landmark is the petrol pump."),
        ("neg_asr_brand2", "the maruti swift and the hero honda both need servicing"),
    ],
    "de-DE": [
        ("neg_street", "Ich wohne in der Goethestraße in Frankfurt, nicht in der Schillerstraße."),
        ("neg_company", "Bei Müller und bei Rossmann war das Produkt ausverkauft."),
        ("neg_month", "Die Rechnung für Mai kam erst Ende Juni."),
        ("neg_job_title", "Bitte verbinden Sie mich mit dem Abteilungsleiter oder dem Kundenservice."),
        ("neg_common_words", "Das ist mein Ernst, ich warte seit drei Wochen auf eine Antwort."),
        ("neg_brand", "Mein Porsche und der Opel meiner Frau stehen beide in der Werkstatt."),
        ("neg_asr_place", "ich bin gerade in der nähe vom bahnhof in kassel"),
        ("neg_place", "Die Lieferung kam aus dem Lager in Ludwigshafen."),
        ("neg_eponym_brand", "Gibt es den Dr. Oetker Pudding auch ohne Zucker?"),
        ("neg_asr_filler", "also ehrlich gesagt war der techniker sehr freundlich"),
        ("neg_brand3", "Die Bosch Waschmaschine zeigt den Fehler E18 an."),
        ("neg_capitalised", "Frank und frei gesagt: Das Angebot ist zu teuer."),
        ("neg_job_title2", "Der Geschäftsführer hat die Kündigung bereits bestätigt."),
        ("neg_asr_home", "der zähler hängt im keller neben der heizung"),
        ("neg_company2", "Siemens hat den Termin auf Dienstag verschoben."),
        ("neg_company3", "Ich habe bei Aldi Süd eingekauft, der Bon ist leider weg."),
        ("neg_place2", "Am Karlsplatz gibt es doch eine Filiale, oder?"),
        ("neg_asr_month", "wir fahren im august an den bodensee"),
        ("neg_capitalised2", "Bitte Rückruf Vor Freitag, Danke."),
        ("neg_eponym_street", "Der Paketbote hat es in der Packstation am Friedrich-Ebert-Platz abgelegt."),
        ("neg_place3", "Wir wohnen in der Lüneburger Heide, da ist der Empfang schlecht."),
        ("neg_asr_month2", "ja genau die rechnung vom märz"),
        ("neg_asr_colour", "ich wollte nur klären ob die rosa hülle noch da ist"),
    ],
    "fr-FR": [
        ("neg_street", "J'habite boulevard Voltaire, près de la place de la République."),
        ("neg_month", "La facture de mai est arrivée fin juin."),
        ("neg_job_title", "Je voudrais parler au responsable du service client."),
        ("neg_brand", "Ma Peugeot et la Renault de mon frère sont au garage."),
        ("neg_common_words", "Le plan de travail en pierre est arrivé fissuré."),
        ("neg_asr_place", "je suis à saint-étienne en ce moment"),
        ("neg_eponym_brand", "J'ai acheté le parfum chez Sephora et le sac chez Louis Vuitton."),
        ("neg_eponym_street", "La rue Victor Hugo est fermée pour travaux, le livreur n'a pas pu passer."),
        ("neg_asr_filler", "franchement le technicien était très sympa"),
        ("neg_job_title2", "Le Directeur commercial m'a répondu lundi."),
        ("neg_common_words2", "Le rosé que j'ai commandé est arrivé cassé."),
        ("neg_company", "Carrefour et Leclerc n'avaient plus de stock."),
        ("neg_capitalised", "Bonjour. Merci. Parfait, Tout Fonctionne."),
        ("neg_asr_product", "oui c'est pour la box internet qui ne marche plus depuis mardi"),
        ("neg_place", "Le colis est bloqué au centre de tri de Marseille."),
        ("neg_eponym_place", "Je prends le RER à Charles de Gaulle - Étoile tous les matins."),
        ("neg_job_title3", "Le conseiller clientèle m'a envoyé un lien."),
        ("neg_asr_month", "c'était en septembre ou en octobre je ne sais plus"),
        ("neg_brand3", "Est-ce que la Citroën C3 est compatible avec ce chargeur ?"),
        ("neg_place3", "Nous sommes à Montpellier depuis avril."),
        ("neg_asr_bank", "il faut que je voie avec la banque d'abord"),
        ("neg_colour", "Olive, noir ou blanc : quelle couleur est disponible ?"),
        ("neg_asr_common_words", "c'est clair que vous m'avez facturé deux fois"),
    ],
    "es-ES": [
        ("neg_street", "Vivo en la calle de Alcalá, cerca de la plaza de Colón."),
        ("neg_common_words", "Dolores de cabeza aparte, el servicio ha sido bueno."),
        ("neg_month", "La factura de mayo llegó a finales de junio."),
        ("neg_job_title", "Quiero hablar con el jefe de departamento o con un supervisor."),
        ("neg_brand", "Compré el Mercedes en un concesionario de Valencia."),
        ("neg_asr_place", "estoy en san sebastián hasta el viernes"),
        ("neg_company", "El pedido de El Corte Inglés y el de Zara llegaron juntos."),
        ("neg_brand2", "Tengo un Seat León y un Ford Focus."),
        ("neg_asr_common_words", "la luz se va cada dos por tres desde el martes"),
        ("neg_common_words2", "Paz y tranquilidad es lo único que pido, ¡arréglenlo ya!"),
        ("neg_street2", "La Gran Vía está cortada, el repartidor no pudo pasar."),
        ("neg_job_title2", "El director comercial me llamó el lunes."),
        ("neg_capitalised", "Perfecto. Gracias. Todo Correcto."),
        ("neg_asr_month", "pues mire yo pedí la tarifa de fibra en octubre"),
        ("neg_place", "El paquete está retenido en la oficina de Correos de Santiago."),
        ("neg_eponym_company", "Me lo vendieron en la tienda de Rosa Clará del centro."),
        ("neg_asr_filler", "el técnico vino pero no traía el router nuevo"),
        ("neg_festival", "Las Fallas de marzo retrasaron el envío en Valencia."),
        ("neg_company3", "El Banco Santander me ha devuelto el recibo."),
        ("neg_colour", "Prefiero el color rosa o el azul marino."),
        ("neg_asr_filler2", "vale entonces espero a que me llamen mañana"),
        ("neg_capitalised2", "Aviso: la Oficina Permanecerá Cerrada el Día de San José."),
        ("neg_asr_festival", "con lo de la semana santa no había nadie en la oficina"),
    ],
    "zh-CN": [
        ("neg_common_words", "我马上帮您查一下订单状态。"),
        ("neg_place", "我在王府井上班，但是快递被送到了朝阳区。"),
        ("neg_eponym_brand", "我买的是李宁的运动鞋，不是安踏的。"),
        ("neg_eponym_brand", "周大福的金项链什么时候能到？"),
        ("neg_job_title", "请帮我转接一下你们的经理或者主管。"),
        ("neg_common_words2", "黄金会员的权益什么时候生效？"),
        ("neg_asr_filler", "我想问一下这个月的账单为什么这么高"),
        ("neg_month", "五月份的发票到现在还没有开出来。"),
        ("neg_place2", "江苏和浙江的仓库都显示没有货。"),
        ("neg_common_words3", "很高兴为您服务，请问还有什么可以帮您？"),
        ("neg_asr_product", "那个白色的已经卖完了吗"),
        ("neg_street", "中山路上的那家门店关门了吗？"),
        ("neg_brand3", "我在海底捞吃饭的时候手机丢了。"),
        ("neg_common_words4", "文件已经发到您的邮箱了，请查收。"),
        ("neg_asr_time", "明天下午三点以后家里有人"),
        ("neg_brand4", "华为手机和小米手机都不能连这个耳机。"),
        ("neg_eponym_brand", "王老吉和加多宝到底是不是一个牌子？"),
        ("neg_job_title2", "客服专员说需要等七个工作日。"),
        ("neg_common_words5", "金额不对，我付了两百块。"),
        ("neg_asr_place", "我们公司在高新区那边"),
        ("neg_company", "林业局的那个项目已经结束了。"),
        ("neg_place3", "张江高科技园区的快递柜坏了。"),
        ("neg_asr_common_words", "我马上就到家了你们的师傅别走"),
    ],
    "hi-IN": [
        ("neg_place", "मैं गांधी नगर में रहता हूँ, पार्सल अहमदाबाद में अटका है।"),
        ("neg_common_words", "आशा है कि मेरी समस्या जल्दी हल हो जाएगी।"),
        ("neg_common_words2", "कल पूजा है इसलिए शाम को डिलीवरी मत भेजिए।"),
        ("neg_job_title", "मुझे ब्रांच मैनेजर से बात करनी है।"),
        ("neg_common_words3", "सूरज की रोशनी में स्क्रीन दिखाई नहीं देती।"),
        ("neg_brand", "टाटा और महिंद्रा दोनों की गाड़ियों पर ऑफर है क्या?"),
        ("neg_month", "मार्च का बिल अभी तक नहीं आया।"),
        ("neg_common_words4", "दीपक और मोमबत्तियाँ दिवाली सेल में ऑर्डर की थीं।"),
        ("neg_common_words5", "विजय दिवस के दिन दुकान खुली रहेगी क्या?"),
        ("neg_asr_filler", "हाँ जी बस यही पूछना था धन्यवाद"),
        ("neg_place2", "मेरा ऑर्डर राजीव चौक मेट्रो स्टेशन के पास वाले पते पर भेजिए।"),
        ("neg_roman_common_words", "Kal pooja hai isliye delivery mat bhejna."),
        ("neg_roman_place", "Main Gandhi Nagar mein rehta hoon, parcel abhi tak nahi aaya."),
        ("neg_asr_roman_filler", "haan ji bas itna hi poochna tha dhanyavaad"),
        ("neg_roman_job_title", "Mujhe manager se baat karni hai, supervisor ko bulao."),
        ("neg_common_words6", "कमल के फूल वाली डिज़ाइन की साड़ी कब आएगी?"),
        ("neg_roman_company", "Bajaj Finance ki EMI do baar kat gayi."),
        ("neg_brand2", "अमर उजाला अखबार की सदस्यता रद्द करनी है।"),
        ("neg_asr_roman_place", "mera parcel lajpat nagar mein atka hua hai"),
        ("neg_job_title2", "ग्राहक सेवा अधिकारी ने कहा था कि दो दिन लगेंगे।"),
        ("neg_month2", "जून में मैंने प्लान बदला था।"),
        ("neg_roman_capitalised", "Sunday ko koi aayega kya technician?"),
        ("neg_asr_common_words", "बस आशा है कि कल तक डिलीवरी हो जाएगी"),
    ],
}

SLOT = re.compile(r"\{([a-z_]+?)\d?\}")
NAME_KINDS = {
    "full",
    "fullf",
    "fullm",
    "first",
    "firstf",
    "firstm",
    "last",
    "initial",
    "particle",
    "compound",
    "spelled",
    "word",
    "roman",
    "romanf",
    "romanm",
}
GENDERED = {"full", "first", "roman"}  # kinds that take an "f"/"m" suffix
ASCII_WORD = re.compile(r"[A-Za-z]+")


class Names:
    """Draws the values of one locale's slots from Faker, never the same person twice in the whole set."""

    def __init__(self, locale: str, used: set[str]) -> None:
        fk_locale, self.region = LOCALES[locale]
        self.locale = locale
        self.fake = Faker(fk_locale)
        self.fake.seed_instance(SEED)
        self.roman = Faker("en_IN")  # romanised Hindi names (hi-IN's Latin-script turns)
        self.roman.seed_instance(SEED)
        self.used = used
        self.words = 0
        self.turn = 0

    def _first(self, fake: Faker, gender: str) -> str:
        if gender == "f":
            return fake.first_name_female()
        if gender == "m":
            return fake.first_name_male()
        return fake.first_name()

    def _full(self, fake: Faker, gender: str) -> str:
        first, last = self._first(fake, gender), fake.last_name()
        return last + first if self.locale == "zh-CN" and fake is self.fake else f"{first} {last}"

    def _fresh(self, draw: Callable[[], str]) -> str:
        """A value not used before (the draw is retried; Faker's lists are long enough)."""
        for _ in range(200):
            value = draw()
            if value not in self.used:
                self.used.add(value)
                return value
        raise RuntimeError("Faker ran out of distinct names")

    def person(self, kind: str, ctx: dict[str, str], ascii_last: bool) -> str:
        base, gender = (kind[:-1], kind[-1]) if kind[:-1] in GENDERED and kind[-1] in "fm" else (kind, "")
        if base == "full":
            return self._fresh(lambda: self._full(self.fake, gender))
        if base == "first":
            return self._fresh(lambda: self._first(self.fake, gender))
        if base == "roman":
            return self._fresh(lambda: self._full(self.roman, gender))
        if base == "last":
            return self._fresh(lambda: self._ascii_last() if ascii_last else self.fake.last_name())
        if base == "spelled":
            return " ".join(ctx["last"].lower())
        if base == "initial":
            return self._fresh(lambda: f"{self.fake.first_name()[0]}. {self.fake.last_name()}")
        if base == "compound":
            return self._fresh(self._compound)
        if base == "particle":
            return self._fresh(self._particle)
        if base == "word":
            self.words += 1
            return WORD_NAMES[self.locale][(self.words - 1) % len(WORD_NAMES[self.locale])]
        raise KeyError(kind)

    def _ascii_last(self) -> str:
        for _ in range(200):
            last = self.fake.last_name()
            if ASCII_WORD.fullmatch(last):
                return last
        raise RuntimeError("no plain-letter surname")

    def _compound(self) -> str:
        """Two surnames: hyphenated, or side by side as Spanish names carry them."""
        first, a, b = self.fake.first_name(), self.fake.last_name(), self.fake.last_name()
        return f"{first} {a} {b}" if self.locale == "es-ES" else f"{first} {a}-{b}"

    def _particle(self) -> str:
        self.turn += 1
        if self.locale == "en-GB":
            return f"{BIN_GIVEN[self.turn % len(BIN_GIVEN)]} bin {BIN_FATHER[(self.turn * 4) % len(BIN_FATHER)]}"
        surnames = PARTICLE_SURNAMES[self.locale]
        return f"{self.fake.first_name_male()} {surnames[self.turn % len(surnames)]}"

    def phone(self) -> str:
        for _ in range(500):
            raw = self.fake.phone_number()
            if "x" in raw.lower() or raw in self.used:
                continue
            try:
                valid = phonenumbers.is_valid_number(phonenumbers.parse(raw, self.region))
            except phonenumbers.NumberParseException:
                valid = False
            if valid:
                self.used.add(raw)
                return raw
        raise RuntimeError("no valid phone number drawn")

    def phone_words(self) -> str:
        """A valid number as a caller says it: the national format's digits, one word each."""
        number = phonenumbers.parse(self.phone(), self.region)
        digits = re.sub(r"\D", "", phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL))
        return " ".join(DIGIT_WORDS[self.locale][int(d)] for d in digits)


def render(template: str, names: Names, asr: bool) -> tuple[str, list[dict]]:
    """Fill the slots left to right, recording each PII value's span in the finished text."""
    ctx: dict[str, str] = {}
    parts: list[str] = []
    spans: list[dict] = []
    pos = 0
    at = 0
    ascii_last = "{spelled}" in template
    for m in SLOT.finditer(template):
        kind = m.group(1)
        if kind in NAME_KINDS:
            value, typ = names.person(kind, ctx, ascii_last), "person_name"
        elif kind == "phone":
            value, typ = names.phone(), "phone"
        elif kind == "phone_words":
            value, typ = names.phone_words(), "phone"
        elif kind == "email":
            value, typ = names.fake.ascii_free_email(), "email"
        else:
            raise KeyError(kind)
        if asr:
            value = value.lower()
        ctx[kind] = value
        literal = template[at : m.start()]
        parts.append(literal)
        pos += len(literal)
        spans.append({"start": pos, "end": pos + len(value), "type": typ, "_value": value})
        parts.append(value)
        pos += len(value)
        at = m.end()
    parts.append(template[at:])
    text = "".join(parts)
    for s in spans:
        assert text[s["start"] : s["end"]] == s.pop("_value"), (template, s)
    return text, spans


def build() -> list[dict]:
    """Every row of the set, in a fixed order: per locale the positives (each wording RENDERINGS times),
    then the negatives."""
    rows: list[dict] = []
    used: set[str] = set()
    for locale in LOCALES:
        names = Names(locale, used)
        n = 0
        for shape, template in POS[locale]:
            asr = "asr_" in shape
            for _ in range(RENDERINGS):
                text, spans = render(template, names, asr)
                assert any(s["type"] == "person_name" for s in spans), shape
                rows.append(
                    {
                        "id": f"{locale}-g{n:03d}",
                        "locale": locale,
                        "text": text,
                        "spans": spans,
                        "asr": asr,
                        "split": "fresh2",
                        "shape": shape,
                    }
                )
                n += 1
        for shape, text in NEG[locale]:
            assert not SLOT.search(text), shape
            rows.append(
                {
                    "id": f"{locale}-g{n:03d}",
                    "locale": locale,
                    "text": text,
                    "spans": [],
                    "asr": "asr_" in shape,
                    "split": "fresh2",
                    "shape": shape,
                }
            )
            n += 1
    return rows


def main() -> None:
    rows = build()
    with open(OUT, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    pos = sum(1 for r in rows if r["spans"])
    print(f"wrote {len(rows)} rows ({pos} with spans, {len(rows) - pos} hard negatives) to {OUT}")


if __name__ == "__main__":
    main()
