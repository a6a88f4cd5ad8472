"""Contact details and the candidate's own name out of a resume, before anything is derived from it.

Everything jobpipe keeps about a candidate (the stored text, the profile, the skill evidence,
the embedding text, the matches) is derived from the redacted text, so a contact detail can
only reach a table, a log line or a vector if this module misses it. What it removes:

* e-mail addresses, links (``https://...``, ``www.``, ``linkedin.com/in/...``) and ``@handles``;
* phone numbers in international and national formats (``+1 (415) 555-0199``, ``139-0000-1234``,
  ``+86 139 0000 1234``), told apart from date ranges and salary ranges by their digit groups,
  and any other long digit run (ID card and passport numbers);
* the value of a labelled contact line (``Phone:``, ``电话：``, ``WeChat:``, ``QQ：``, ``GitHub:``
  ...) whatever its format, and of a name line (``Name:``, ``姓名：``);
* street addresses (``12 Main Street``, ``科技园路1号``) and postal codes; the city stays,
  it is a matching criterion;
* the candidate's name: given (JSON ``name``), from the document's author metadata, from a
  ``Name:`` / ``姓名`` / ``曾用名`` field (also run together with the next field, as a PDF table
  flattens it), or read from the header: a first line that looks like a name, or one addressed as
  a name ("周明远先生，", "Dr. Maya Okafor", "佘文博：男，", "古丽娜·阿不都"); every occurrence is
  removed, also reversed ("Okafor, Maya"), without spaces, and as surname with a form of address
  ("周先生", "黄教授");
* anyone else addressed by name in Chinese ("王女士"), and referees: a "References" / "证明人"
  section up to the next heading, a "Reference:" / "证明人：" line's value;
* who the person is, after a label ("性别：", "Age:", "户籍：", "Marital Status:"): never a matching
  criterion, so never in a vector.

Each removal leaves a neutral placeholder (``[email]``, ``[phone]``, ``[link]``, ``[address]``,
``[name]``, ``[personal]`` ...), so the text keeps its shape for the section parser.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from jobpipe.candidates.sections import heading_of
from jobpipe.normalize import canonical_skill
from jobpipe.normalize.location import is_city_name

PLACEHOLDERS = ("[email]", "[phone]", "[link]", "[handle]", "[address]", "[number]", "[name]", "[contact]",
                "[personal]")

# The local part starts a run and is at most 64 characters (RFC 5321): unbounded, a long run of
# word characters without an "@" (a Chinese paragraph) cost quadratic time.
_EMAIL = re.compile(r"(?<![\w.+\-'])[\w.+\-']{1,64}\s*(?:@|\(at\)|\[at\])\s*[\w\-]+(?:\s*(?:\.|\(dot\)|\[dot\])\s*[\w\-]+)+", re.I)
_URL = re.compile(
    r"(?:https?://|ftp://|www\.)[^\s<>()\[\]{}\"'，。；、]+"
    r"|(?<![\w.\-])(?:[\w\-]+\.)*(?:linkedin\.com|github\.com|gitlab\.com|twitter\.com|x\.com|facebook\.com|instagram\.com|"
    r"t\.me|medium\.com|behance\.net|dribbble\.com|stackoverflow\.com|zhihu\.com|weibo\.com|gitee\.com|"
    r"csdn\.net|juejin\.cn|kaggle\.com)(?:/[^\s<>()\[\]{}\"'，。；、]*)?",
    re.I,
)
# A bare domain with a path (portfolio.dev/me) or a personal site (maya.io).
# Both domain patterns start only where a dotted run starts: from every position inside a long
# run ("1.1.1.1...", a table of version numbers) they cost quadratic time.
_BARE_SITE = re.compile(r"(?<![\w.\-])[a-z0-9][a-z0-9\-]*(?:\.[a-z0-9\-]+)*\.(?:com|net|org|io|dev|me|cn|ai|co|info|site|xyz|page)"
                        r"(?:/[^\s<>()\[\]{}\"'，。；、]*)?(?![\w.])", re.I)
_HANDLE = re.compile(r"(?<![\w@.])@[A-Za-z0-9_][A-Za-z0-9_.\-]{1,38}")
# Labelled contact values: everything after the label up to the end of the line, the next field
# separator (a run of spaces, a tab, "|", "；") or the next label.
_LABELS = (
    r"(?:(?<![A-Za-z])(?:e-?mail|mail|phone|mobile|cell|tel(?:ephone)?|fax|whats?app|wechat|weixin|skype|telegram|"
    r"signal|line\s?id|qq|linkedin|github|gitlab|twitter|facebook|instagram|website|homepage|portfolio|blog|"
    r"address|home address|street|zip(?:\s?code)?|postal\s?code|post\s?code|passport|ssn|id\s?(?:card|number|no\.?))"
    r"|电话|手机|手机号(?:码)?|联系电话|联系方式|座机|传真|邮箱|电子邮箱|电子邮件|邮件|微信(?:号)?|QQ号?|地址|住址|家庭住址|"
    r"通讯地址|联系地址|邮编|邮政编码|身份证(?:号)?(?:码)?|护照(?:号)?|个人主页|主页|博客|证明人|推荐人|"
    r"(?<![A-Za-z])(?:references?|referees?)(?=\s*[:：|｜]))"
)
_LABEL_SEP = r"(?:\s*[:：]\s*|\s+[|｜]\s+|\s*(?=[+\d(]))"
_CONTACT_LABEL = re.compile(
    _LABELS + _LABEL_SEP + r"(?P<value>[^\n\t|｜；;]*?)"
    r"(?=\s{3,}|\t|[|｜；;]|\n|$|\s+[^\s:：|｜]{1,14}\s?[:：]|[\s,，、]*" + _LABELS + _LABEL_SEP + ")",
    re.I,
)
# Who the person is rather than what they can do: sex, age and birth date, origin, ethnicity,
# marital and political status, religion, body. A matching criterion none of them may be, so none
# reaches a vector, a match or a table ("性别：男", "Age: 29", "户籍：安徽合肥", "Marital Status: Single").
# Only with a colon or a table cell after the label: "at age 12" and "height 100px" stay.
_PERSONAL_LABELS = (
    r"(?:(?<![A-Za-z])(?:gender|sex|age|date\s+of\s+birth|d\.?o\.?b\.?|birth\s*date|birthday|born|"
    r"place\s+of\s+birth|hometown|marital\s+status|nationality|citizenship|religion|caste|ethnicity|race|"
    r"height|weight)(?![A-Za-z])"
    r"|性\s*别|年\s*龄|出生年月|出生日期|出生年份|生\s*日|民\s*族|婚姻状况|婚姻状态|婚\s*否|政治面貌|宗教信仰|"
    r"户\s*籍|籍\s*贯|户口(?:所在地)?|出生地|身\s*高|体\s*重|健康状况|国\s*籍)"
)
_PERSONAL_LABEL = re.compile(
    _PERSONAL_LABELS + r"(?:\s*[:：]\s*|\s*[|｜]\s*)(?P<value>[^\n\t|｜；;]*?)"
    r"(?=\s{2,}|\t|[|｜；;，,]|\n|$|\s+[^\s:：|｜]{1,14}\s?[:：]|[\s、]*(?:" + _PERSONAL_LABELS + "|" + _LABELS +
    r")\s*[:：|｜])",
    re.I,
)
# The label's value follows a colon, or the next cell of a table row ("姓名 | 张三丰 | 性别 | 男",
# as a .docx table is read).
# An English label starts its line or cell: "Project Name: Inventory System" names no person.
_NAME_LABEL = re.compile(r"(?:(?:^|(?<=[\n\t|｜]))[ \t]*(?:full\s+name|name|candidate)\s*(?:[:：]|[|｜])|"
                         r"(?:姓\s*名|曾用名|英文名|中文名|别名)\s*(?:[:：]|[|｜])?)"
                         r"\s*(?P<value>[^\n\t|｜；;,，()（）]{1,60})", re.I)
# A form flattened out of a PDF table runs its fields together ("姓名：林子涵性别：女年龄：28"):
# a name's value ends where the next field's label starts.
_NEXT_FIELD = re.compile(r"\s*(?:性\s*别|民\s*族|出\s*生|年\s*龄|籍\s*贯|学\s*历|电\s*话|手\s*机|邮\s*箱|[:：]).*|\s{2,}.*",
                         re.S)   # or two spaces: "Name: Priya Raman  Age: 29"
# Digit runs that may be phone numbers: an optional +, digits, spaces, dots, dashes, brackets.
_PHONE_LIKE = re.compile(r"(?<![\w+])\+?\(?\d[\d\s().\-/]{5,}\d(?!\w)")
_DIGIT_GROUP = re.compile(r"\d+")
_STREET_EN = re.compile(
    r"\b\d{1,6}[A-Za-z]?(?:[\s,]+[A-Z][\w'.\-]*){1,5}\s+(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|"
    r"Way|Court|Ct|Place|Pl|Terrace|Ter|Parkway|Pkwy|Highway|Hwy|Square|Sq|Circle|Cir|Crescent|Close|Row|Alley|"
    r"Strasse|Straße|Str|Weg|Platz|Gasse)\b\.?(?:[\s,]+(?:Apt|Apartment|Suite|Ste|Unit|Floor|Fl|#)\.?\s*[\w\-]+)?"
)
_STREET_ZH = re.compile(
    r"(?:(?![省市区县镇])[\u4e00-\u9fff\d]){1,12}(?:路|街|大道|大街|巷|弄|胡同|道)[\u4e00-\u9fff\d\-]{0,12}?\d+\s*号"
    r"(?:[\w\-]{0,16}?(?:室|楼|层|单元|栋|幢|座|号楼))*"
    r"|[\u4e00-\u9fff]{2,12}(?:小区|花园|公寓|大厦|新村|家园)[\u4e00-\u9fff\d\-]{0,16}?(?:\d+\s*(?:号楼|栋|幢|单元|室|号))+"
)
_POSTCODE = re.compile(r"(?<=\b[A-Z]{2}\s)\d{5}(?:-\d{4})?\b|\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b")
_SPACES = re.compile(r"[ \t]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
#: A word of a name: capitalized, in any script with case ("Nguyễn", "Saldaña", "O'Brien",
#: "Jean-Luc", "JOHN"), or an initial ("A.").
_LATIN_NAME_WORD = re.compile(r"^(?=[^\W\d_])(?:[^\W\d_]|['’\-])+\.?$")
#: Lower-case particles inside a name: "Ludwig van Beethoven", "Mohammed bin Salman".
_NAME_PARTICLES = frozenset("van von der den de da das dos du del della di la le bin binti bint al el ter y".split())
_CJK_NAME = re.compile(r"^[\u4e00-\u9fff]{2,4}$")
# How a name is addressed: "周明远先生", "Mr. John Smith". With the form of address, 2-4 Chinese
# characters are a name whatever the surname; without it, the surname list decides.
_ZH_HONORIFIC = "(?:先生|女士|小姐|同志)"
_ZH_TITLE = "(?:教授|博士)"   # "黄教授": only after a known surname ("计算机博士" is a degree)
_EN_TITLE = re.compile(r"^(?:mr|mrs|ms|miss|mx|dr|prof)\.?\s+", re.I)
_ZH_ADDRESSED = re.compile(r"^(?P<name>[\u4e00-\u9fff]{2,4}?)" + _ZH_HONORIFIC)
_ZH_TITLED = re.compile(r"^(?P<name>[\u4e00-\u9fff]{2,4}?)" + _ZH_TITLE)
# A name transliterated into Chinese joins its parts with a middle dot ("古丽娜·阿不都").
_ZH_DOTTED_NAME = re.compile(r"^[\u4e00-\u9fff]{1,6}(?:[·・•][\u4e00-\u9fff]{1,10})+$")
# After the name, its holder's sex ("佘文博：男，", "林子涵（女）", "巫启航男1961年"): a bio's or a
# form's first field.
_SEX_AFTER = re.compile(r"^\s*(?:[:：,，（(]\s*(?:男|女|male|female)(?![\w])|(?:男|女)(?=[\d\s,，:：]))", re.I)
#: Common Chinese surnames (over 95% of people): a 2-4 character line starting with one reads as a
#: name, while headings of the same length ("工作经历", "前端开发") do not.
_SURNAMES_1 = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪"
    "范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜"
    "倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁"
    "蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾"
    "隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝官封谈匡鞠惠荆乐冀郁胥南班储原栗燕楚鄢劳谌奚皮粟冼蔺楼盘满闻位厉伊仝区"
    "郜海阚花权强帅屠豆朴盖练廉禹井祖漆巴丰支卿国狄平计索宣晋相初门云容敬来扈晁芮都普阙浦戈伏鹿薄邸雍辜羊阿乌母裘亓修邰"
    "赫杭况那宿鲜印逯隆茹诸战慕危玉银亢嵇公哈湛宾戎勾茅利於呼居揭干但尉冶斯元束檀衣信展阴昝智幸奉植衡富尧闭由"
)
_SURNAMES_2 = frozenset("欧阳 司马 诸葛 上官 东方 皇甫 尉迟 公孙 慕容 令狐 长孙 宇文 司徒 夏侯 轩辕 端木 南宫 西门 独孤 百里".split())
#: First lines that are headings, not names.
_NOT_A_NAME = frozenset({
    "resume", "curriculum vitae", "cv", "profile", "summary", "contact", "personal details", "personal information",
    "简历", "个人简历", "求职简历", "个人信息", "基本信息", "个人资料",
})
#: Words a name never is (roles and section words): "Senior Engineer" is not a person.
_NOT_NAME_WORDS = frozenset(
    "engineer developer scientist analyst manager designer architect consultant specialist lead director "
    "administrator intern programmer researcher officer accountant teacher nurse technician senior junior staff "
    "principal software data machine learning full stack frontend backend web mobile cloud devops product project "
    "resume curriculum vitae summary profile objective experience education skills contact the and of for with "
    "java python net sap hr sales marketing testing quality assurance operations business advocate civil "
    "mechanical electrical network security database etl hadoop blockchain".split()
)


@dataclass
class Redaction:
    """The redacted text and how many details of each kind were removed (counts only)."""

    text: str
    counts: dict[str, int] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)   # the names looked for (never stored or logged)


def _is_date_or_range(digits: list[str], raw: str) -> bool:
    """Digit groups that read as dates ("2018.03 - 2020.02", "2016 - 2020", "03/2019") or as a range of
    amounts ("25000-35000", "15-25"), not as a phone number."""
    if all((len(g) == 4 and g[:2] in ("19", "20")) or len(g) <= 2 for g in digits) and any(
            len(g) == 4 for g in digits):
        return True
    if len(digits) == 2 and all(len(g) <= 6 for g in digits) and re.search(r"\d\s*[-~–—至到]\s*\d", raw):
        return True   # two amounts with a range dash: a salary or a count, never a phone
    return False


def _phone_or_number(match: re.Match[str]) -> str | None:
    raw = match.group(0)
    digits = _DIGIT_GROUP.findall(raw)
    total = sum(len(g) for g in digits)
    if total < 7 or _is_date_or_range(digits, raw):
        return None
    if total > 15:
        return "[number]"
    if total < 9 and not raw.lstrip().startswith(("+", "(")) and len(digits) < 2:
        return None   # a plain 7-8 digit figure (an amount, a count) without phone punctuation
    return "[phone]"


def _is_tech_name(text: str) -> bool:
    if "/" in text:
        return False
    return canonical_skill(text) is not None or text.lower() in _TECH_DOMAINS


#: Technology names spelled like domains that the skill taxonomy may not list.
_TECH_DOMAINS = frozenset({"asp.net", "ado.net", "vb.net", "dot.net", "socket.io", "chart.js", "d3.js", "three.js",
                           "p5.js", "moment.js", "ember.js", "backbone.js", "knockout.js", "ext.net", "mono.net"})


def _fold(text: str) -> str:
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def looks_like_name(text: str) -> bool:
    """A line that is a person's name: 2-4 capitalized Latin words, or 2-4 Chinese characters."""
    text = _fold(text).strip(" :：-|·•*#")
    if not text or text.lower() in _NOT_A_NAME or len(text) > 40:
        return False
    if _CJK_NAME.match(text):
        return text[:2] in _SURNAMES_2 or text[0] in _SURNAMES_1
    words = text.split()
    if not 2 <= len(words) <= 5:
        return False
    if any(w.lower().strip(".,") in _NOT_NAME_WORDS for w in words):
        return False
    if is_city_name(text):
        return False   # "New York", "Ho Chi Minh City": a header's place, which matching needs
    inner = [w for w in words[1:-1] if w not in _NAME_PARTICLES]
    named = [words[0], *inner, words[-1]]
    return len(named) <= 4 and all(_LATIN_NAME_WORD.match(w) and w[0].isupper() for w in named)


def header_name(text: str) -> str | None:
    """The name a resume starts with, if its first non-empty line (or that line's first segment,
    "Maya Okafor | Senior Engineer") looks like one, or is addressed as one ("周明远先生，1975年出生",
    "Dr. Maya Okafor", "佘文博：男")."""
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        folded = _fold(line)
        addressed = _ZH_ADDRESSED.match(folded)
        if addressed:
            return addressed.group("name")
        titled = _ZH_TITLED.match(folded)
        if titled and looks_like_name(titled.group("name")):   # "黄立德教授"; "计算机博士" is a degree
            return titled.group("name")
        raw_first = re.split(r"\s[|｜·•\-–—]\s|\s{3,}|\t|[,，:：（(]", line)[0]
        # "Marital Status: Single" is a field, not a name
        field_label = line[len(raw_first):].lstrip().startswith((":", "：")) and not _CJK.search(raw_first)
        first = _EN_TITLE.sub("", _fold(raw_first.strip()))
        if not field_label and (looks_like_name(first) or _ZH_DOTTED_NAME.match(first)):
            return first.strip(" :：-|·•*#")
        both = _CJK_AND_LATIN.match(first)   # "张伟 Wei Zhang"
        if both and looks_like_name(both.group(1)) and looks_like_name(both.group(2)):
            return first
        sex = re.match(r"[\u4e00-\u9fff]{2,5}?(?=\s*[:：,，（(]?\s*(?:男|女))", folded)
        if sex and _SEX_AFTER.match(folded[sex.end():]):
            return sex.group(0)
        if _fold(line).lower() in _NOT_A_NAME:
            continue   # "RESUME" above the name
        return None
    return None


_CJK_AND_LATIN = re.compile(r"^([\u4e00-\u9fff]{2,4})\s+([^\W\d_][^\u4e00-\u9fff]*)$")
_BRACKETED = re.compile(r"^\s*[(（]\s*(?:(?:中文名|英文名|English name|Chinese name)\s*[:：]?\s*)?([^()（）\n]{2,40}?)\s*[)）]", re.I)


def _aliases_after(text: str, name: str) -> list[str]:
    """The name's other spelling in brackets right after it in the header ("Wei Zhang (张伟)",
    "林子涵（Zihan Lin）"), when that too looks like a name."""
    line = next((ln for ln in text.splitlines() if name in _fold(ln)), "")
    folded = _fold(line)
    rest = folded[folded.find(name) + len(name):]
    m = _BRACKETED.match(rest)
    if m and looks_like_name(m.group(1)):
        return [m.group(1)]
    return []


def _name_patterns(names: Iterable[str]) -> list[re.Pattern[str]]:
    patterns = []
    seen = set()
    for name in names:
        name = _fold(name).strip(" :：-|·•*#,")
        if not name or len(name) < 2 or name.lower() in seen:
            continue
        seen.add(name.lower())
        if _CJK.search(name):
            variants = [name]
            if " " in name:
                variants.append(name.replace(" ", ""))
            for v in variants:
                patterns.append(re.compile(r"\s*".join(map(re.escape, v.replace(" ", "")))))
            compact = name.replace(" ", "")
            surname = compact[:2] if compact[:2] in _SURNAMES_2 else compact[:1]
            given = compact[len(surname):]
            if len(given) >= 2:   # the given name alone ("雪梅带领团队"); a lone surname is too common
                patterns.append(re.compile(re.escape(given)))
            # ... but not the surname with a form of address ("刘先生曾任", "黄教授")
            patterns.append(re.compile(re.escape(surname) + "(?:" + _ZH_HONORIFIC + "|" + _ZH_TITLE + ")"))
            continue
        words = [w.strip(".,") for w in name.split() if w.strip(".,")]
        if not words:
            continue
        spelled = [r"\s+".join(map(re.escape, words))]
        if len(words) >= 2:
            spelled.append(re.escape(words[-1]) + r",?\s+" + r"\s+".join(map(re.escape, words[:-1])))   # Okafor, Maya
            spelled.append("".join(map(re.escape, words)))   # MayaOkafor
        patterns.append(re.compile(r"(?<![\w])(?:" + "|".join(spelled) + r")(?![\w])", re.I))
        # Each part of the name alone too ("Quillfeather likes Python"), capitalized as names are,
        # except parts that are also skill names (Ruby, Julia, Rust): those stay where they are skills.
        alone = [w for w in words if len(w) >= 3 and not _is_skill_word(w)]
        if alone:
            patterns.append(re.compile(r"(?<![\w])(?:" + "|".join(map(re.escape, alone)) + r")(?![\w])"))
    return patterns


def _is_skill_word(word: str) -> bool:
    return canonical_skill(word) is not None


def _usable_name(value: str | None) -> str | None:
    """A metadata author or a given name, if it can be a person's name (not "Microsoft Office User")."""
    if not value:
        return None
    value = _fold(value)
    if not value or len(value) > 60 or "@" in value or any(ch.isdigit() for ch in value):
        return None
    if value.lower() in {"user", "admin", "administrator", "microsoft office user", "owner", "author", "unknown"}:
        return None
    return value


def redact(text: str, names: Iterable[str | None] = ()) -> Redaction:
    """``text`` without contact details and without the candidate's name (see the module docstring).

    ``names`` are names known from elsewhere (the JSON ``name``, the document's author); the
    header line and a ``Name:`` line add theirs.
    """
    counts: dict[str, int] = {}

    def sub(pattern: re.Pattern[str], placeholder: str, value: str, kind: str) -> str:
        result, n = pattern.subn(placeholder, value)
        if n:
            counts[kind] = counts.get(kind, 0) + n
        return result

    known = [n for n in (_usable_name(v) for v in names) if n]
    for m in _NAME_LABEL.finditer(text):
        value = _NEXT_FIELD.sub("", m.group("value")).strip()
        if value and (looks_like_name(value) or _CJK_NAME.match(_fold(value).replace(" ", ""))):
            known.append(_fold(value))
    head = header_name(text)
    if head:
        both = _CJK_AND_LATIN.match(head)
        known.extend(both.groups() if both else [head])
        known.extend(_aliases_after(text, head))

    out = text
    # Labelled values first: they may hold formats no pattern below recognizes ("QQ: 12345").
    def labelled(m: re.Match[str]) -> str:
        value = m.group("value")
        if not value.strip():
            return m.group(0)
        counts["contact"] = counts.get("contact", 0) + 1
        label = m.group(0)[: m.start("value") - m.start(0)]
        if re.match(r"\s*(?:address|home address|street|地址|住址|家庭住址|通讯地址|联系地址)", label, re.I):
            return label + _address_value(value)
        return label + "[contact]"

    out = _CONTACT_LABEL.sub(labelled, out)

    def personal(m: re.Match[str]) -> str:
        value = m.group("value")
        if not value.strip():
            return m.group(0)
        counts["personal"] = counts.get("personal", 0) + 1
        space = value[len(value.rstrip()):]
        return m.group(0)[: m.start("value") - m.start(0)] + "[personal]" + space

    out = _PERSONAL_LABEL.sub(personal, out)
    out = sub(_EMAIL, "[email]", out, "email")
    out = sub(_URL, "[link]", out, "link")

    def site(m: re.Match[str]) -> str:
        if _is_tech_name(m.group(0)):
            return m.group(0)   # ASP.NET, socket.io: skills, not sites
        counts["link"] = counts.get("link", 0) + 1
        return "[link]"
    out = _BARE_SITE.sub(site, out)
    out = sub(_HANDLE, "[handle]", out, "handle")

    def phone(m: re.Match[str]) -> str:
        repl = _phone_or_number(m)
        if repl is None:
            return m.group(0)
        counts["phone"] = counts.get("phone", 0) + 1
        # keep the spacing around the number so "Tel +1 555 ... | Berlin" keeps its separators
        raw = m.group(0)
        return raw[: len(raw) - len(raw.lstrip())] + repl
    out = _PHONE_LIKE.sub(phone, out)
    out = sub(_STREET_EN, "[address]", out, "address")
    out = sub(_STREET_ZH, "[address]", out, "address")
    out = sub(_POSTCODE, "[address]", out, "address")
    for pattern in _name_patterns(known):
        out = sub(pattern, "[name]", out, "name")
    # Anyone else addressed by name ("董事长王建国先生", a referee "李女士") is personal data too.
    out = sub(_ZH_ADDRESSED_ANYWHERE, "[name]", out, "name")
    out = _drop_references(out, counts)
    return Redaction(out, counts, known)


#: A section of referees: other people's names, titles and numbers, nothing that matches a job.
_REFERENCES_HEADING = re.compile(r"^[\s#*•\-=_【\[(（]*(?:references?|referees?|证明人|推荐人)[\s:：*】\])）\-=_]*$", re.I)


def _drop_references(text: str, counts: dict[str, int]) -> str:
    """Every line of a references section, up to the next section's heading, becomes ``[personal]``."""
    if not re.search(r"(?i)referen|referee|证明人|推荐人", text):
        return text
    out, inside = [], False
    for line in text.split("\n"):
        if _REFERENCES_HEADING.match(line):
            inside = True
        elif inside and heading_of(line):
            inside = False
        elif inside and line.strip() and line.strip() != "[personal]":
            counts["personal"] = counts.get("personal", 0) + 1
            line = "[personal]"
        out.append(line)
    return "\n".join(out)


_ZH_ADDRESSED_ANYWHERE = re.compile(
    "(?:" + "|".join(sorted(_SURNAMES_2)) + "|[" + "".join(sorted(_SURNAMES_1)) + "])"
    r"[\u4e00-\u9fff]{0,2}?" + _ZH_HONORIFIC + "(?!产|成|效)"   # not "原先生产", "预先生成"
)


def _address_value(value: str) -> str:
    """A labelled address without its street part: the city and district stay for matching."""
    kept = _STREET_ZH.sub("[address]", _STREET_EN.sub("[address]", value))
    kept = _POSTCODE.sub("[address]", kept)
    kept = re.sub(r"\b\d{4,6}\b", "[address]", kept)
    if kept == value:
        # no street pattern matched: keep only the parts that name a place without digits
        parts = [p.strip() for p in re.split(r"[,，]", value) if p.strip()]
        kept = ", ".join(p for p in parts if not any(ch.isdigit() for ch in p)) or "[address]"
        if kept != value:
            kept = "[address], " + kept if kept != "[address]" else kept
    return kept
