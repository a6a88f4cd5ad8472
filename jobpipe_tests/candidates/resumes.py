"""Hand-written fixture resumes (fictional people), in the shapes of real resume datasets."""

ZH_BACKEND = """李明
求职意向：Python 后端开发工程师
现居：深圳市南山区
电话：139-0000-1234  邮箱：liming@example.com

工作经验：5年
2020.03 - 至今  某互联网公司  后端开发工程师
负责订单系统后端开发，使用 Python、Django 和 PostgreSQL，维护 Redis 缓存与 Docker 部署。
2018.07 - 2020.02  某软件公司  初级开发
"""

EN_ML = """Alex Morgan
alex.morgan@example.com | +1 (415) 555-0199
Machine Learning Engineer
Location: San Francisco, CA

Summary
Machine learning engineer with 6+ years of experience building recommendation and ranking models.

Experience
Acme Analytics, Jan 2019 - Present: trained models in Python and PyTorch, served them on Kubernetes.
Beta Labs, 2016 - 2018: data pipelines with SQL and Spark.
"""

EN_FRONTEND = """Sam Lee
Frontend Developer based in Austin, TX
Skills: JavaScript, React, TypeScript, CSS
3 years of experience building web apps.
"""
