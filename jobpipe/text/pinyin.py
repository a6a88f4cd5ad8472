"""Romanized Chinese (tone-less pinyin) as keyword terms: 链家 -> "lianjia".

English queries name Chinese employers and brands in pinyin ("Lianjia real estate agent",
Meituan, Xiaohongshu), and users without an input method type Chinese words that way
("shuju fenxi"). Such a Latin word occurs in no Chinese posting, so it matched nothing.

Postings: the pinyin of each Chinese word of 2+ characters in the title and company
(``posting_terms``) is stored as an extra keyword term, under a mark (``MARK`` + pinyin) that
no tokenized text produces. The mark keeps them apart from English words: an English word
spelled like pinyin ("women" is 我们) neither matches those postings nor has its document
frequency changed by them. Queries: the keyword leg looks a Latin word up by its marked form only
when the word as typed matches no posting at all (``jobpipe.search.keyword``).

Words are the project's tokens (``jobpipe.text.tokenize``, jieba); pypinyin reads each word
with its own phrase table (重庆 -> chongqing, 银行 -> yinhang), without a segmenter of its own.
"""

from __future__ import annotations

import functools
import re

#: Prefix of a stored pinyin term: a digit after letters, which a romanization never has.
MARK = "py0"

_CJK_WORD = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}")
#: Every tone-less syllable (pypinyin's readings of its characters; ü written v, and lue/nue as
#: users type them): a cheap test of whether a Latin word can be pinyin at all, so that other
#: words never cost a lookup.
SYLLABLES = frozenset((
    "a ai an ang ao ba bai ban bang bao bei ben beng bi bian biang biao bie bin bing bo bong bu ca "
    "cai can cang cao ce cei cen ceng cha chai chan chang chao che chen cheng chi chong chou chu chua "
    "chuai chuan chuang chui chun chuo ci cong cou cu cuan cui cun cuo da dai dan dang dao de dei den "
    "deng di dia dian diao die din ding diu dong dou du duan dui dun duo e ei en eng er fa fan fang "
    "fei fen feng fiao fo fou fu ga gai gan gang gao ge gei gen geng gong gou gu gua guai guan guang "
    "gui gun guo ha hai han hang hao he hei hen heng hong hou hu hua huai huan huang hui hun huo ji "
    "jia jian jiang jiao jie jin jing jiong jiu ju juan jue jun ka kai kan kang kao ke kei ken keng "
    "kong kou ku kua kuai kuan kuang kui kun kuo la lai lan lang lao le lei len leng li lia lian "
    "liang liao lie lin ling liu lo long lou lu luan lue lun luo lv lve ma mai man mang mao me mei "
    "men meng mi mian miao mie min ming miu mo mou mu na nai nan nang nao ne nei nen neng ni nia nian "
    "niang niao nie nin ning niu nong nou nu nuan nue nun nuo nv nve o ou pa pai pan pang pao pei pen "
    "peng pi pian piao pie pin ping po pou pu qi qia qian qiang qiao qie qin qing qiong qiu qu quan "
    "que qun ran rang rao re ren reng ri rong rou ru rua ruan rui run ruo sa sai san sang sao se sen "
    "seng sha shai shan shang shao she shei shen sheng shi shou shu shua shuai shuan shuang shui shun "
    "shuo si song sou su suan sui sun suo ta tai tan tang tao te tei teng ti tian tiao tie ting tong "
    "tou tu tuan tui tun tuo wa wai wan wang wei wen weng wo wong wu xi xia xian xiang xiao xie xin "
    "xing xiong xiu xu xuan xue xun ya yan yang yao ye yi yin ying yo yong you yu yuan yue yun za zai "
    "zan zang zao ze zei zen zeng zha zhai zhan zhang zhao zhe zhei zhen zheng zhi zhong zhou zhu "
    "zhua zhuai zhuan zhuang zhui zhun zhuo zi zong zou zu zuan zui zun zuo "
).split())
_SYLLABLE = "|".join(sorted(SYLLABLES, key=lambda s: (-len(s), s)))
_PINYIN_WORD = re.compile(f"(?:{_SYLLABLE})(?:{_SYLLABLE})+")


@functools.lru_cache(maxsize=65_536)
def romanize(word: str) -> str | None:
    """Tone-less pinyin of a Chinese word of 2+ characters, as one Latin word; else None."""
    if not _CJK_WORD.fullmatch(word):
        return None
    from pypinyin import Style, lazy_pinyin  # ~0.2-0.6 s to import: only where postings are tokenized

    return "".join(lazy_pinyin(word, style=Style.NORMAL, errors="ignore")) or None


def posting_terms(tokens: list[str]) -> list[str]:
    """The marked pinyin terms of a posting's title and company tokens (each once)."""
    out: dict[str, None] = {}
    for token in tokens:
        latin = romanize(token)
        if latin:
            out[MARK + latin] = None
    return list(out)


def may_be_pinyin(word: str) -> bool:
    """Whether a lower-case Latin word reads as two or more pinyin syllables ("lianjia", "shuju")."""
    return 4 <= len(word) <= 30 and bool(_PINYIN_WORD.fullmatch(word))


def marked(word: str) -> str:
    """The stored term a typed pinyin word is looked up as."""
    return MARK + word
