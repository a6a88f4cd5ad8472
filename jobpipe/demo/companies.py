"""The fictional employers of the bundled demo, where they hire and what they publish on.

Every name here is invented. Each company publishes through one or two real source formats
(a Greenhouse board, a Lever board, a career site with JSON-LD), so the demo exercises more
than one scraper, and two companies publish on both, which gives the deliberate cross-posts.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class City:
    """A place a posting can name, with what each format writes for it."""

    key: str
    zh: str               # as a Chinese posting writes it
    en: str               # as an English posting writes it: "San Francisco, CA"
    locality: str         # schema.org PostalAddress.addressLocality
    region: str
    country: str          # ISO 3166-1 alpha-2
    region_pay: str       # which salary table applies: cn | cn_low | us | uk | de | sg | hk
    tz: str               # UTC offset used in timestamps, "+08:00"


CITIES: dict[str, City] = {c.key: c for c in [
    City("beijing", "北京", "Beijing, China", "北京", "北京市", "CN", "cn", "+08:00"),
    City("shanghai", "上海", "Shanghai, China", "上海", "上海市", "CN", "cn", "+08:00"),
    City("shenzhen", "深圳", "Shenzhen, China", "深圳", "广东省", "CN", "cn", "+08:00"),
    City("hangzhou", "杭州", "Hangzhou, China", "杭州", "浙江省", "CN", "cn", "+08:00"),
    City("guangzhou", "广州", "Guangzhou, China", "广州", "广东省", "CN", "cn", "+08:00"),
    City("chengdu", "成都", "Chengdu, China", "成都", "四川省", "CN", "cn_low", "+08:00"),
    City("singapore", "新加坡", "Singapore", "Singapore", "Singapore", "SG", "sg", "+08:00"),
    City("hongkong", "香港", "Hong Kong SAR", "Hong Kong", "Hong Kong", "HK", "hk", "+08:00"),
    City("sf", "旧金山", "San Francisco, CA", "San Francisco", "CA", "US", "us", "-08:00"),
    City("nyc", "纽约", "New York, NY", "New York", "NY", "US", "us", "-05:00"),
    City("london", "伦敦", "London, UK", "London", "England", "GB", "uk", "+00:00"),
    City("berlin", "柏林", "Berlin, Germany", "Berlin", "Berlin", "DE", "de", "+01:00"),
    # Remote postings: the region says whose pay table and which applicant countries apply.
    City("remote_us", "远程（美国）", "Remote - US", "", "", "US", "us", "-05:00"),
    City("remote_emea", "远程（欧洲）", "Remote - EMEA", "", "", "DE", "de", "+01:00"),
    City("remote_cn", "远程", "Remote (China)", "", "", "CN", "cn", "+08:00"),
]}


@dataclass(frozen=True)
class Voice:
    """How a company presents itself in one language."""

    name: str
    intro: str            # one paragraph about the company
    product: str          # fills {product} in role texts
    domain: str           # fills {domain} in role texts
    benefits: str


@dataclass(frozen=True)
class Company:
    slug: str
    lang: str                       # the language most of its postings are written in
    voices: dict[str, Voice]        # "zh" / "en" -> Voice
    cities: tuple[str, ...]         # City keys, most frequent first
    roles: tuple[str, ...]          # role plan, "role_key" or "role_key:variant", one per posting
    channel: str                    # greenhouse | lever | jsonld
    site_style: str = "plain"       # jsonld only: plain | graph | array
    site_roles: tuple[str, ...] = ()  # postings only on its career site (when it also has a board)

    @property
    def name(self) -> str:
        return self.voices[self.lang].name


COMPANIES: tuple[Company, ...] = (
    # ------------------------------------------------------------------ Greenhouse boards
    Company(
        slug="lumenwise", lang="en", channel="greenhouse",
        voices={"en": Voice(
            "Lumenwise",
            "Lumenwise builds the inference and evaluation platform that product teams use to ship large "
            "language model features safely. More than 900 companies route production traffic through our "
            "gateway, and our research team publishes openly on evaluation methodology.",
            "the Lumenwise inference gateway", "LLM serving and evaluation",
            "We offer competitive equity, full medical, dental and vision coverage, a $2,000 yearly learning "
            "budget, and a flexible hybrid schedule with two office days a week.")},
        cities=("sf", "nyc", "remote_us", "london"),
        roles=("en_llm", "en_backend_go", "en_agent", "en_ml:senior", "en_frontend", "en_sre",
               "en_pm", "en_llm:intern", "en_data_eng", "en_security", "en_design", "en_agent:senior",
               "en_sales", "en_backend_go:senior", "en_analyst", "en_ml:campus", "en_cs", "en_llm:senior"),
        site_roles=("en_pm:senior", "en_frontend:senior", "en_agent:intern", "en_sre:senior", "en_cs:senior"),
    ),
    Company(
        slug="quillmark", lang="en", channel="greenhouse",
        voices={"en": Voice(
            "Quillmark",
            "Quillmark is a payments and treasury platform for mid-sized European businesses. We move "
            "billions of euros a year across 30 countries, and we hold ourselves to the reliability "
            "standards that money demands.",
            "the Quillmark payments ledger", "payments and treasury",
            "Benefits include 28 days of paid holiday, an employee share option plan, private health "
            "insurance, a pension contribution and a home-office allowance.")},
        cities=("london", "berlin", "remote_emea", "nyc"),
        roles=("en_backend_java", "en_backend_java:senior", "en_data_eng", "en_sre", "en_security",
               "en_frontend", "en_pm", "en_analyst", "en_backend_java:contract", "en_sales", "en_cs",
               "en_design", "en_ml", "en_backend_go"),
    ),
    Company(
        slug="qinghe", lang="zh", channel="greenhouse",
        voices={
            "zh": Voice(
                "青禾智能",
                "青禾智能成立于2019年，专注于大模型与多模态技术在教育、办公场景的落地，自研的青禾大模型已服务"
                "超过300家企业客户。公司总部位于上海，在北京、深圳和新加坡设有研发中心。",
                "青禾大模型开放平台", "教育与办公",
                "我们提供有竞争力的薪酬与期权、六险一金、年度体检、免费三餐和弹性工作制，并为每位员工提供"
                "GPU算力额度用于学习和实验。"),
            "en": Voice(
                "Qinghe AI",
                "Qinghe AI builds large language and multimodal models for education and office software, "
                "serving more than 300 enterprise customers from Shanghai, Beijing, Shenzhen and Singapore.",
                "the Qinghe model platform", "applied large models",
                "We offer equity, comprehensive medical insurance, free meals, and a personal GPU budget "
                "for experiments."),
        },
        cities=("shanghai", "beijing", "shenzhen", "singapore"),
        roles=("zh_llm_algo", "zh_llm_algo:intern", "zh_agent", "zh_backend_go", "zh_llm_algo:senior",
               "zh_agent:intern", "zh_frontend", "zh_pm", "zh_llm_algo:campus", "zh_sre", "zh_data_eng",
               "zh_rec_algo", "zh_design", "zh_agent:senior", "zh_sales", "zh_analyst:intern",
               "zh_backend_go:campus", "en_llm"),
        site_roles=("zh_pm:intern", "zh_ops", "zh_frontend:campus", "zh_qa"),
    ),
    Company(
        slug="orbitkite", lang="en", channel="greenhouse",
        voices={
            "en": Voice(
                "Orbitkite Robotics",
                "Orbitkite Robotics designs autonomous mobile robots for warehouses and hospitals. Our fleet "
                "software runs more than 4,000 robots across Europe and Asia, and our hardware is built in "
                "our Shenzhen lab.",
                "the Orbitkite fleet manager", "warehouse robotics",
                "You will get stock options, 30 vacation days, a relocation package for Berlin, and a yearly "
                "trip to our Shenzhen hardware lab."),
            "zh": Voice(
                "Orbitkite Robotics（轨鸢机器人）",
                "轨鸢机器人专注于仓储与医院场景的自主移动机器人，调度系统已在欧洲和亚洲运行超过4000台机器人，"
                "硬件研发与试产基地位于深圳。",
                "轨鸢机器人调度系统", "仓储机器人",
                "提供期权激励、六险一金、带薪年假20天、免费班车，优秀者有机会赴柏林总部交流。"),
        },
        cities=("berlin", "shenzhen", "singapore", "remote_emea"),
        roles=("en_robotics", "en_robotics:senior", "en_backend_go", "en_ml", "en_sre", "en_frontend",
               "zh_robotics", "zh_robotics:intern", "en_data_eng", "en_pm", "zh_qa", "en_robotics:intern",
               "zh_sales", "en_cs"),
    ),
    # ------------------------------------------------------------------ Lever boards
    Company(
        slug="brightpike", lang="en", channel="lever",
        voices={"en": Voice(
            "Brightpike",
            "Brightpike makes developer tooling for continuous integration: our remote-first team of 120 "
            "builds the build cache and test analytics used by 40,000 engineers every day.",
            "the Brightpike build cache", "developer tooling",
            "Brightpike is remote-first: we pay a home-office stipend, cover coworking memberships, and "
            "meet in person twice a year.")},
        cities=("remote_us", "sf", "nyc", "remote_emea"),
        roles=("en_backend_go", "en_frontend", "en_sre:senior", "en_agent", "en_pm", "en_data_eng",
               "en_backend_go:contract", "en_design", "en_cs", "en_security", "en_backend_go:intern",
               "en_analyst"),
    ),
    Company(
        slug="haijiao", lang="en", channel="lever",
        voices={
            "en": Voice(
                "Haijiao Mobility",
                "Haijiao Mobility runs ride-hailing and airport transfer services in Hong Kong, Singapore "
                "and the Greater Bay Area, with 2 million monthly riders and a growing electric fleet.",
                "the Haijiao dispatch platform", "ride-hailing and mobility",
                "We offer medical and dental cover, annual ride credits, a year-end bonus and hybrid working."),
            "zh": Voice(
                "海角出行",
                "海角出行在香港、新加坡和大湾区提供网约车与机场接送服务，月活乘客超过200万，电动车队规模持续扩大。",
                "海角智能调度平台", "出行",
                "提供医疗及牙科保险、年度乘车额度、年终奖金和混合办公。"),
        },
        cities=("hongkong", "singapore", "shenzhen"),
        roles=("en_backend_java", "en_data_eng", "zh_rec_algo", "en_analyst", "en_ops", "zh_backend_go",
               "en_pm", "en_ml:intern", "zh_ops", "en_sales"),
    ),
    # ------------------------------------------------------------------ career sites (JSON-LD)
    Company(
        slug="yunzhan", lang="zh", channel="jsonld", site_style="plain",
        voices={"zh": Voice(
            "云栈科技",
            "云栈科技是一家企业级云原生与低代码平台公司，帮助制造、零售和金融客户快速搭建业务系统。目前服务"
            "客户超过2000家，总部位于杭州，在北京、成都设有分公司。",
            "云栈低代码平台", "企业SaaS",
            "五险一金、补充商业保险、年终奖、带薪年假15天、下午茶和年度旅游，成都、杭州提供人才公寓。")},
        cities=("hangzhou", "beijing", "chengdu", "remote_cn"),
        roles=("zh_backend_go", "zh_java", "zh_frontend", "zh_sre", "zh_java:senior", "zh_pm",
               "zh_qa", "zh_backend_go:campus", "zh_frontend:intern", "zh_data_eng", "zh_sales",
               "zh_design", "zh_agent", "zh_sre:senior", "zh_analyst", "zh_java:campus", "zh_ops",
               "zh_frontend:senior"),
    ),
    Company(
        slug="shiguang", lang="zh", channel="jsonld", site_style="graph",
        voices={"zh": Voice(
            "拾光数据",
            "拾光数据提供一站式数据中台与智能分析服务，日处理数据量超过3PB，客户覆盖连锁零售、物流和新能源"
            "行业。公司在上海、成都和广州设有办公室。",
            "拾光数据中台", "数据智能",
            "六险一金、弹性工作、季度团建、技术大会报销、每年两次调薪机会。")},
        cities=("shanghai", "chengdu", "guangzhou", "beijing"),
        roles=("zh_data_eng", "zh_data_eng:senior", "zh_analyst", "zh_llm_algo", "zh_data_eng:intern",
               "zh_java", "zh_pm", "zh_analyst:campus", "zh_agent", "zh_sre", "zh_rec_algo",
               "zh_analyst:senior", "zh_frontend", "zh_llm_algo:intern", "zh_sales", "zh_qa",
               "zh_data_eng:campus", "zh_ops"),
    ),
    Company(
        slug="xinglan", lang="zh", channel="jsonld", site_style="array",
        voices={"zh": Voice(
            "星澜互娱",
            "星澜互娱是一家游戏研发与发行公司，代表作包括二次元卡牌手游和多人竞技游戏，全球注册用户超过"
            "5000万。研发中心位于广州和上海，海外发行团队在新加坡。",
            "星澜游戏平台", "游戏",
            "六险一金、项目奖金、免费健身房、每月游戏补贴、节日礼包、弹性上下班。")},
        cities=("guangzhou", "shanghai", "shenzhen", "singapore"),
        roles=("zh_game_client", "zh_game_client:senior", "zh_backend_go", "zh_design", "zh_ops",
               "zh_rec_algo", "zh_game_client:intern", "zh_analyst", "zh_qa", "zh_llm_algo",
               "zh_pm", "zh_game_client:campus", "zh_sre", "zh_ops:intern", "zh_design:senior",
               "zh_frontend", "zh_data_eng", "zh_agent"),
    ),
    Company(
        slug="luming", lang="zh", channel="jsonld", site_style="plain",
        voices={"zh": Voice(
            "鹿鸣优选",
            "鹿鸣优选是一家社交电商平台，主打产地直供的生鲜和家居好物，拥有3000万注册用户和6000家合作商家，"
            "总部位于杭州，深圳设有供应链与技术中心。",
            "鹿鸣优选交易平台", "电商",
            "五险一金、年度体检、员工购物折扣、餐补和交通补贴、年终奖2-4个月。")},
        cities=("hangzhou", "shenzhen", "guangzhou", "beijing"),
        roles=("zh_java", "zh_rec_algo", "zh_ops", "zh_frontend", "zh_analyst", "zh_java:senior",
               "zh_pm", "zh_rec_algo:intern", "zh_sales", "zh_design", "zh_ops:campus", "zh_sre",
               "zh_qa", "zh_agent", "zh_data_eng", "zh_analyst:intern"),
    ),
    Company(
        slug="fernhollow", lang="en", channel="jsonld", site_style="graph",
        voices={"en": Voice(
            "Fernhollow Health",
            "Fernhollow Health builds software for community clinics: scheduling, clinical notes and claims "
            "in one product used by 2,500 clinics across the United States and the UK.",
            "the Fernhollow clinic platform", "healthcare software",
            "We offer comprehensive health coverage from day one, 401(k) or pension matching, 25 days of "
            "paid time off and paid parental leave.")},
        cities=("nyc", "remote_us", "london", "sf"),
        roles=("en_backend_java", "en_frontend", "en_data_eng", "en_ml", "en_pm", "en_design",
               "en_security", "en_analyst", "en_cs", "en_sre", "en_agent", "en_sales",
               "en_frontend:senior", "en_analyst:intern"),
    ),
    Company(
        slug="brambleway", lang="en", channel="jsonld", site_style="array",
        voices={"en": Voice(
            "Brambleway Logistics",
            "Brambleway Logistics plans and tracks freight for 8,000 shippers across Europe. Our routing "
            "engine decides which truck carries which pallet, and our carbon reports are audited every year.",
            "the Brambleway routing engine", "freight logistics",
            "Benefits include 30 days of holiday, a public transport pass, a company pension, and two "
            "volunteering days a year.")},
        cities=("berlin", "london", "remote_emea"),
        roles=("en_backend_go", "en_data_eng", "en_ml", "en_ops", "en_pm", "en_analyst",
               "en_frontend", "en_sre", "en_backend_go:senior", "en_sales", "en_design", "en_ops:contract"),
    ),
)

#: Greenhouse postings (by index on the board) that the same company repeats on its career site:
#: the deliberate cross-posts a deduplicator should recognise.
CROSS_POSTS: dict[str, tuple[int, ...]] = {"lumenwise": (0, 2), "qinghe": (1,)}

COMPANY_BY_SLUG: dict[str, Company] = {c.slug: c for c in COMPANIES}
