"""The ``jobpipe`` command line.

Commands import what they need inside their own function, for start-up time: ``import jobpipe.cli``
stays at a few hundredths of a second, while the pipeline (Dagster), the service (FastAPI, MCP), the
candidate stack and the search stack each cost a second or more to import; a command pays for its own.
Module-level imports here are the cheap ones.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import typing
from dataclasses import asdict
from datetime import date
from pathlib import Path
from typing import Any

from jobpipe import __version__
from jobpipe.filelock import HomeBusy
from jobpipe.service import run_mcp, serve


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False, default=str, indent=None))


# ----------------------------------------------------------------------------- run
def _print_sources_problems(exc: Any) -> None:
    """One line per mistake of the sources file (all of them, so one edit can fix them all)."""
    if len(exc.problems) == 1:
        print(f"jobpipe: invalid sources file: {exc.problems[0]}", file=sys.stderr)
        return
    print(f"jobpipe: invalid sources file ({len(exc.problems)} mistakes):", file=sys.stderr)
    for line in exc.problems:
        print(f"  {line}", file=sys.stderr)


def cmd_run(args: argparse.Namespace) -> int:
    # lazy (start-up time): the pipeline imports Dagster
    from jobpipe.db.connection import lost_database
    from jobpipe.orchestration.runner import format_summary, run_pipeline
    from jobpipe.sources import SourcesFileError

    echo = None if args.json else (lambda msg: print(msg, file=sys.stderr, flush=True))
    try:
        summary = run_pipeline(args.sources, day=args.date, echo=echo)
    except SourcesFileError as exc:
        _print_sources_problems(exc)
        return 2
    except HomeBusy as exc:
        print(f"jobpipe: {exc}", file=sys.stderr)
        return 3
    except Exception as exc:
        lost = lost_database(exc)
        if lost is None:
            raise
        print(f"jobpipe: the database is not answering ({lost}). Start it (`jobpipe db start` for the embedded "
              "one) and run again: a rerun repairs what an interrupted run left.", file=sys.stderr)
        return 4
    if args.json:
        _print_json(summary.to_json())
    else:
        print(format_summary(summary))
    for line in summary.problems:   # loud: one line per problem, and a non-zero exit
        print(f"jobpipe: {line}", file=sys.stderr)
    return 0 if summary.ok else 1


# ----------------------------------------------------------------------------- search
#: CLI spellings that differ from a filter's field name (a repeatable flag reads as one item).
_FLAG_NAMES = {"skills": "--skill"}


def add_filter_flags(parser: argparse.ArgumentParser, model: Any = None, defaults: dict[str, Any] | None = None) -> None:
    """One flag per field of ``model`` (default ``SearchFilters``, the one filter spec): its type,
    choices and help. ``defaults`` overrides a field's default for this command line."""
    # lazy (start-up time): jobpipe.search.types loads the search package (pandas, pandera, jieba)
    from jobpipe.search.types import SearchFilters

    model = model or SearchFilters
    defaults = defaults or {}
    for name, info in model.model_fields.items():
        flag = _FLAG_NAMES.get(name, "--" + name.replace("_", "-"))
        kind = typing.get_args(info.annotation) or (info.annotation,)
        options: dict[str, Any] = {"dest": name, "help": info.description}
        if name in defaults:
            options["default"] = defaults[name]
        if info.annotation is bool and name in defaults:      # a default that can be turned off
            options["action"] = argparse.BooleanOptionalAction
        elif info.annotation is bool:
            options["action"] = "store_true"
        elif bool in kind:                                   # bool | None: --remote / --no-remote
            options["action"] = argparse.BooleanOptionalAction
        elif info.annotation == tuple[str, ...]:
            options["action"] = "append"
        else:
            literal = next((k for k in kind if typing.get_origin(k) is typing.Literal), None)
            if literal is not None:
                options["choices"] = typing.get_args(literal)
            else:
                kind_type = next(k for k in kind if k is not type(None))
                options["type"] = _iso_date if kind_type is date else kind_type
        if "action" not in options or options["action"] == "append":
            options["metavar"] = flag.lstrip("-").replace("-", "_").upper()
        parser.add_argument(flag, **options)


def _iso_date(text: str) -> date:
    """A date flag as YYYY-MM-DD (an argparse message, not a traceback, for anything else)."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None


def _top_k(text: str) -> int:
    """--top-k within what the service accepts too (``jobpipe.service.limits.MAX_TOP_K``)."""
    from jobpipe.service.limits import MAX_TOP_K

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= MAX_TOP_K:
        raise argparse.ArgumentTypeError(f"{value} is outside 1..{MAX_TOP_K}")
    return value


def _filters(args: argparse.Namespace) -> Any:
    # lazy (start-up time): the search package
    from jobpipe.search.types import SearchFilters

    given = {name: getattr(args, name) for name in SearchFilters.model_fields}
    return SearchFilters.parse({k: v for k, v in given.items() if v is not None})


def cmd_search(args: argparse.Namespace) -> int:
    # lazy (start-up time): the search stack and the embedder
    from jobpipe.db import connect, ready_url
    from jobpipe.embedding import get_embedder
    from jobpipe.search import search
    from jobpipe.search.rerank import reranker_from_env
    from jobpipe.search.types import FilterError

    try:
        filters = _filters(args)
    except FilterError as exc:
        print(f"jobpipe search: {exc}", file=sys.stderr)
        return 2
    url = ready_url()
    with connect(url) as conn:
        response = search(conn, args.query, filters, top_k=args.top_k, embedder=get_embedder(),
                          mode=args.mode, debug=args.debug, auto_filters=args.auto_filters,
                          rerank=args.rerank, reranker=reranker_from_env() if args.rerank else None)
    rows: list[dict[str, Any]] = []
    for r in response.results:
        rows.append({
            "job_id": r.job_id, "source": r.source, "external_id": r.external_id, "title": r.title,
            "company": r.company, "city": r.cities[0] if r.cities else None, "cities": r.cities,
            "salary": r.salary, "url": r.url, "posted_at": r.posted_at, "score": round(r.score, 6),
            "vector_rank": r.vector_rank, "keyword_rank": r.keyword_rank,
        })
    if args.json:
        _print_json(rows)
        return 0
    print(f'search "{args.query}": {len(rows)} results' + (f" (model {response.model})" if response.model else ""))
    applied = {name: getattr(response.filters, name) for name in response.auto_filters}
    if applied:
        print("filters from the query: " + ", ".join(f"{k}={v}" for k, v in applied.items())
              + " (--no-auto-filters to search without them)")
    # What was read and not applied ("'8000U以内' is a pay ceiling", "'不要外包' rules out ..."),
    # and why a leg did not run: a person reads them here, as an agent does in the MCP text.
    for note in [*response.understood.notes, *response.notes]:
        print(f"note: {note}")
    for i, row in enumerate(rows, 1):
        city = ", ".join(row["cities"]) or "-"
        print(f"{i:>2}. {row['title']} | {row['company'] or '-'} | {city} | {_salary_text(row['salary'])}"
              f"  [job {row['job_id']}, {row['source']}/{row['external_id']}, score {row['score']:.4f}]")
    if args.debug and response.timings_ms:
        print("timings (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in response.timings_ms.items()))
    return 0


def _salary_text(salary: dict[str, Any] | None) -> str:
    if not salary:
        return "salary n/a"
    if salary.get("negotiable") and salary.get("min") is None:
        return "negotiable"
    lo, hi = salary.get("min"), salary.get("max")
    if lo is None and hi is None:
        return "salary n/a"
    amount = f"{lo:,.0f}" if hi is None or lo == hi else f"{lo or 0:,.0f}-{hi:,.0f}"
    return f"{salary.get('currency') or ''} {amount}/{salary.get('period') or '?'}".strip()


# ----------------------------------------------------------------------------- jobs show
def cmd_jobs_show(args: argparse.Namespace) -> int:
    # lazy (start-up time): the database layer and the store
    from jobpipe.db import connect, ready_url
    from jobpipe.store.jobs import load_job

    with connect(ready_url()) as conn:
        missing = 0
        for external_id in args.external_ids:
            job = load_job(conn, args.source, external_id)
            if job is None:
                print(f"jobpipe: no job {args.source}/{external_id}", file=sys.stderr)
                missing += 1
                continue
            if args.json:
                _print_json(job)
            else:
                print(json.dumps(job, ensure_ascii=False, default=str, indent=2))
    return 1 if missing else 0


# ----------------------------------------------------------------------------- candidates
def _candidate_settings() -> tuple[int, int, Path]:
    # lazy (start-up time): pydantic-settings
    from jobpipe.config import get_settings

    settings = get_settings()
    return settings.matches_top_n, settings.matches_reserve, settings.candidates_path


def cmd_candidates_add(args: argparse.Namespace) -> int:
    # lazy (start-up time): the candidate stack (resume readers, parser, matcher)
    from jobpipe.candidates.documents import UnreadableResume
    from jobpipe.candidates.intake import add_candidate
    from jobpipe.candidates.store import CandidateError
    from jobpipe.db import connect, ready_url
    from jobpipe.embedding import get_embedder
    from jobpipe.search.types import FilterError

    if args.id and len(args.files) > 1:
        print("jobpipe candidates add: --id names one candidate; give one FILE with it", file=sys.stderr)
        return 2
    prefs = None
    if args.prefs:
        text = Path(args.prefs[1:]).read_text(encoding="utf-8") if args.prefs.startswith("@") else args.prefs
        try:
            prefs = json.loads(text)
        except json.JSONDecodeError as exc:
            print(f"jobpipe candidates add: --prefs is not valid JSON ({exc.msg})", file=sys.stderr)
            return 2
        if not isinstance(prefs, dict):
            print("jobpipe candidates add: --prefs must be a JSON object", file=sys.stderr)
            return 2
    top_n, reserve, _ = _candidate_settings()
    failed = 0
    embedder = None
    with connect(ready_url()) as conn:
        for name in args.files:
            path = Path(name)
            try:
                data = path.read_bytes()
            except OSError as exc:
                print(f"jobpipe candidates add: {path}: cannot be read ({exc.strerror})", file=sys.stderr)
                failed += 1
                continue
            if embedder is None:
                embedder = get_embedder()
            try:
                added = add_candidate(conn, data, path.suffix, candidate_id=args.id, default_id=path.stem,
                                      preferences=prefs, origin="cli", embedder=embedder, top_n=top_n, reserve=reserve)
            except (UnreadableResume, FilterError, CandidateError) as exc:
                conn.rollback()
                print(f"jobpipe candidates add: {path.name}: {exc}", file=sys.stderr)
                failed += 1
                continue
            if args.json:
                _print_json(added.as_json())
            else:
                matched = f"{added.matches} matches stored" if added.matches else (
                    "matches follow at the next run" if not added.embedded else "no open job matches yet")
                print(f"{added.candidate_id}: {added.outcome} ({matched})")
    return 1 if failed else 0


def cmd_candidates_list(args: argparse.Namespace) -> int:
    # lazy (start-up time): the candidate stack (resume readers, parser, matcher)
    from jobpipe.candidates.store import list_candidates, quarantined
    from jobpipe.db import connect, ready_url

    with connect(ready_url()) as conn:
        rows = list_candidates(conn)
        bad = quarantined(conn)
    if args.json:
        _print_json({"candidates": rows, "quarantined": bad})
        return 0
    for r in rows:
        years = f"{r['experience_years']:g}y" if r["experience_years"] is not None else "-"
        print(f"{r['candidate_id']}  [{r['origin']}]  {r['headline'] or '-'} | {r['seniority'] or '-'} | {years} | "
              f"{len(r['skills'])} skills | {r['matches']} matches" + ("" if r["embedded"] else " | not embedded yet"))
    if not rows:
        print("no candidates (put resumes in the drop folder, or: jobpipe candidates add FILE)")
    for q in bad:
        print(f"quarantined: {q['source_file']}: {q['reason']}")
    return 0


def cmd_candidates_show(args: argparse.Namespace) -> int:
    # lazy (start-up time): the candidate stack (resume readers, parser, matcher)
    from jobpipe.candidates.store import UnknownCandidateError, load_candidate
    from jobpipe.db import connect, ready_url

    with connect(ready_url()) as conn:
        try:
            shown = load_candidate(conn, args.candidate_id).show()
        except UnknownCandidateError as exc:
            print(f"jobpipe: {exc}", file=sys.stderr)
            return 1
    if args.json:
        _print_json(shown)
    else:
        print(json.dumps(shown, ensure_ascii=False, default=str, indent=2))
    return 0


def cmd_candidates_matches(args: argparse.Namespace) -> int:
    # lazy (start-up time): the candidate stack (resume readers, parser, matcher)
    from jobpipe.candidates.matching import read_matches
    from jobpipe.candidates.store import UnknownCandidateError
    from jobpipe.db import connect, ready_url

    top_n, _, _ = _candidate_settings()
    with connect(ready_url()) as conn:
        try:
            stored = read_matches(conn, args.candidate_id, top_k=args.top_k, top_n=top_n)
        except UnknownCandidateError as exc:
            print(f"jobpipe: {exc}", file=sys.stderr)
            return 1
    if args.json:
        _print_json({"candidate_id": stored.candidate_id, "model": stored.model, "computed_at": stored.computed_at,
                     "note": stored.note, "results": [asdict(r) for r in stored.results]})
        return 0
    if stored.note:
        print(stored.note)
    for r in stored.results:
        parts = " ".join(f"{k} {v:.0f}" for k, v in r.parts.items())
        print(f"{r.rank:>2}. {r.score:5.1f}  {r.title} | {r.company or '-'} | {', '.join(r.cities) or '-'} | "
              f"{_salary_text(r.salary)}  [job {r.job_id}]")
        print(f"      {parts}; has: {', '.join(r.matched_skills + r.matched_nice) or '-'}; "
              f"missing: {', '.join(r.missing_skills) or '-'}"
              + (f" (nice to have: {', '.join(r.missing_nice)})" if r.missing_nice else ""))
    return 0


def cmd_candidates_delete(args: argparse.Namespace) -> int:
    # lazy (start-up time): the candidate stack (resume readers, parser, matcher)
    from jobpipe.candidates.intake import delete_candidate
    from jobpipe.candidates.store import CandidateError
    from jobpipe.db import connect, ready_url

    _, _, folder = _candidate_settings()
    with connect(ready_url()) as conn:
        try:
            removed = delete_candidate(conn, args.candidate_id, folder=folder)
        except CandidateError as exc:
            print(f"jobpipe: {exc}", file=sys.stderr)
            return 1
    print(f"deleted {args.candidate_id}: profile, vectors and matches" + (f", and {removed} from the drop folder"
                                                                          if removed else ""))
    return 0


# ----------------------------------------------------------------------------- db
def cmd_db(args: argparse.Namespace) -> int:
    # lazy (start-up time): the database layer and the embedded server's package
    from jobpipe.config import get_settings
    from jobpipe.db import dagster_storage_url, ready_url, server

    settings = get_settings()
    if args.action == "service-role":
        return _service_role(args)
    if args.action == "dagster-url":
        print(dagster_storage_url(settings))   # the JOBPIPE_DAGSTER_STORAGE_URL of deploy/dagster.yaml
        return 0
    if args.action in ("start", "url"):
        url = ready_url()
        print(url if args.action == "url" else f"database ready: {url}")
        return 0
    if not settings.embedded:
        print("JOBPIPE_DATABASE_URL is set: jobpipe does not manage that server.")
        return 0 if args.action == "status" else 1
    if args.action == "stop":
        print("stopped" if server.stop(settings) else "not running")
        return 0
    st = server.status(settings)
    state = f"running (pid {st.pid})" if st.running else "stopped"
    print(f"embedded PostgreSQL: {state}; data in {st.pgdata}")
    return 0


def _service_role(args: argparse.Namespace) -> int:
    """The opt-in step that gives the query service its own reader login on this database."""
    # lazy (start-up time): the database layer
    from jobpipe.db import ready_url
    from jobpipe.db.roles import CANDIDATE_WRITES, SERVING_OBJECTS, ServiceRoleError, ensure_service_login
    from jobpipe.db.server import serves

    url = ready_url()
    # Over the network a login needs a password; the embedded server trusts its own socket. A
    # login the administrator created (--no-create) keeps the password they gave it.
    password: bool | str = args.password if args.password is not None else (not serves(url) and not args.no_create)
    writer = bool(args.candidate_writer)
    try:
        login = ensure_service_login(url, role=args.role, password=password, create=not args.no_create,
                                     candidate_writer=writer)
    except ServiceRoleError as exc:
        print(f"jobpipe: {exc}", file=sys.stderr)
        return 1
    what = "created" if login.created else "exists"
    rights = (f"SELECT on {len(SERVING_OBJECTS)} serving objects"
              + (f", writes on the {len(CANDIDATE_WRITES)} candidate tables" if writer else "") + ", nothing else")
    print(f"{'candidate writer' if writer else 'service'} login {login.role} ({what}): {rights}; "
          "no role memberships.", file=sys.stderr)
    variable = "JOBPIPE_SERVICE_WRITER_DATABASE_URL" if writer else "JOBPIPE_SERVICE_DATABASE_URL"
    if login.password is not None or serves(url):
        print(f"{variable}={login.url}")
    else:
        print(f"(password unchanged: pass --password to set a new one) {variable}={login.url}")
    return 0


# ----------------------------------------------------------------------------- ui
def cmd_ui(args: argparse.Namespace) -> int:
    # lazy (start-up time): Dagster's instance set-up
    from jobpipe.config import DEMO_SOURCES_FILE, PROJECT_ROOT, get_settings
    from jobpipe.db import ready_url
    from jobpipe.orchestration.instance import prepare_dagster_home

    ready_url()
    prepare_dagster_home()
    _fail_dead_runs()
    demo = None
    if get_settings().sources_file.resolve() == DEMO_SOURCES_FILE.resolve():
        # lazy: only the bundled demo needs its server
        from jobpipe.demo import DemoServer
        from jobpipe.demo.server import demo_port

        demo = DemoServer(port=args.demo_port if args.demo_port is not None else demo_port()).start(
            fallback_to_free_port=True)
        os.environ["JOBPIPE_DEMO_URL"] = demo.url
        print(f"demo boards served at {demo.url}", file=sys.stderr)
    cmd = [sys.executable, "-m", "dagster", "dev", "-h", args.host, "-p", str(args.port),
           "-w", str(PROJECT_ROOT / "workspace.yaml")]
    # Its own session, so that stopping here stops the webserver, daemon and code servers together.
    # SIGINT is reset to the default in the child: a Python started with SIGINT ignored (any
    # process launched in the background) would otherwise never see Ctrl-C's graceful shutdown.
    proc = subprocess.Popen(cmd, start_new_session=True, cwd=PROJECT_ROOT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
    print(f"Dagster UI on http://{args.host}:{args.port} (Ctrl-C stops it)", file=sys.stderr)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        _stop_process_group(proc)
        return 0
    finally:
        if demo is not None:
            demo.stop()


def _fail_dead_runs() -> None:
    """Runs a killed ``jobpipe run`` left STARTED show as failed in the UI, not running forever."""
    # lazy (start-up time): Dagster
    from dagster import DagsterInstance

    from jobpipe.orchestration.runs import mark_dead_runs_failed

    with DagsterInstance.get() as instance:
        for run_id in mark_dead_runs_failed(instance):
            print(f"run {run_id} was left STARTED by a process that died: marked failed", file=sys.stderr)


def _raise_keyboard_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _stop_process_group(proc: subprocess.Popen[bytes]) -> None:
    """Ask politely (SIGINT, like Ctrl-C), then firmly, then kill: never leave daemons behind."""
    for sig, grace in ((signal.SIGINT, 15), (signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


# ----------------------------------------------------------------------------- serve / mcp
def cmd_serve(args: argparse.Namespace) -> int:
    # lazy (start-up time): the service's settings; serve()/run_mcp() import the rest when called
    from jobpipe.service.settings import ServiceConfigError

    try:
        serve(host=args.host, port=args.port)
    except ServiceConfigError as exc:
        print(f"jobpipe: {exc}", file=sys.stderr)
        return 1
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    # lazy (start-up time): the service's settings; serve()/run_mcp() import the rest when called
    from jobpipe.service.settings import ServiceConfigError

    try:
        run_mcp(transport=args.transport, host=args.host, port=args.port)
    except ServiceConfigError as exc:
        print(f"jobpipe: {exc}", file=sys.stderr)
        return 1
    return 0


def _demo_address(path: Path) -> None:
    """Let the bundled demo's sources file load outside `jobpipe run`.

    It names its boards by the address `jobpipe run` serves them at (``JOBPIPE_DEMO_URL``), which
    does not exist before or after a run; checking the file and reporting its sources' status
    read only names and settings, so a placeholder address stands in.
    """
    from jobpipe.config import DEMO_SOURCES_FILE
    from jobpipe.demo import DEMO_URL_ENV

    if Path(path).resolve() == DEMO_SOURCES_FILE.resolve() and not os.environ.get(DEMO_URL_ENV):
        os.environ[DEMO_URL_ENV] = "http://127.0.0.1"


def cmd_sources_check(args: argparse.Namespace) -> int:
    # lazy (start-up time): the sources layer (httpx, every kind)
    from jobpipe.config import get_settings
    from jobpipe.sources import SourcesFileError, load_sources

    path = args.file or get_settings().sources_file
    _demo_address(path)
    try:
        sources = load_sources(path)
    except SourcesFileError as exc:
        _print_sources_problems(exc)
        return 2
    for s in sources:
        print(f"{s.name}: {s.kind}{'' if s.enabled else ' (disabled)'}")
    return 0


def cmd_sources_accept_close(args: argparse.Namespace) -> int:
    # lazy (start-up time): the database layer and the store
    from jobpipe.config import get_settings
    from jobpipe.db import connect, ready_url
    from jobpipe.store.operations import accept_close, fetched_sources, last_refused_close, withdraw_acceptance

    settings = get_settings()
    with connect(ready_url()) as conn:
        known = fetched_sources(conn)
        if args.name not in known:
            print(f"jobpipe: no source {args.name!r} has been fetched in this database "
                  f"(known: {', '.join(sorted(known)) or 'none'})", file=sys.stderr)
            return 2
        if args.withdraw:
            withdrawn = withdraw_acceptance(conn, args.name)
            print(f"{args.name}: acceptance withdrawn" if withdrawn else f"{args.name}: nothing was accepted")
            return 0
        accepted = accept_close(conn, args.name, args.note)
        refused = last_refused_close(conn, args.name)
    pending = f"; its last run ({refused[1]}) would have closed {refused[0]}" if refused else ""
    print(f"{args.name}: accepted at {accepted.accepted_at.isoformat(timespec='seconds')}: the next confirmed "
          f"listing may close past the close guard ({settings.close_guard_share:.0%} unless the sources file "
          f"says otherwise), once{pending}")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    # lazy (start-up time): the database layer, the sources layer and the store
    from jobpipe.config import get_settings
    from jobpipe.db import connect, ready_url
    from jobpipe.sources import SourcesFileError, load_sources
    from jobpipe.status import format_status, source_status

    settings = get_settings()
    path = args.sources or settings.sources_file
    _demo_address(path)
    try:
        configs = load_sources(path)
    except SourcesFileError as exc:
        _print_sources_problems(exc)
        return 2
    with connect(ready_url()) as conn:
        rows = source_status(conn, configs, default_freshness_hours=settings.freshness_hours)
    if args.json:
        _print_json({"ok": not any(r.failing for r in rows), "sources": [r.to_json() for r in rows]})
    else:
        print(format_status(rows))
    return 1 if any(r.failing for r in rows) else 0


# ----------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jobpipe", description="The data pipeline behind job-matching agents.")
    parser.add_argument("--version", action="version", version=f"jobpipe {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="materialize the whole graph once and print a summary")
    p.add_argument("--sources", type=Path, help="sources file (default: JOBPIPE_SOURCES or the bundled demo)")
    p.add_argument("--date", type=date.fromisoformat, help="partition day (default: today, UTC)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("search", help="hybrid search over open jobs")
    p.add_argument("query")
    add_filter_flags(p)
    from jobpipe.search.types import SearchOptions  # lazy: as add_filter_flags

    add_filter_flags(p, SearchOptions, defaults={"auto_filters": True})   # a person types constraints
    p.add_argument("--top-k", type=_top_k, default=10, help="How many results (1..100).")
    p.add_argument("--mode", choices=["hybrid", "vector", "keyword"], default="hybrid")
    p.add_argument("--debug", action="store_true", help="print per-stage timings")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("jobs", help="inspect curated jobs")
    jobs_sub = p.add_subparsers(dest="jobs_command", required=True)
    show = jobs_sub.add_parser("show", help="print normalized postings")
    show.add_argument("source")
    show.add_argument("external_ids", nargs="+", metavar="EXTERNAL_ID")
    show.add_argument("--json", action="store_true", help="one JSON object a line")
    show.set_defaults(func=cmd_jobs_show)

    p = sub.add_parser("candidates", help="candidates (resumes): add, list, show, matches, delete")
    cand = p.add_subparsers(dest="candidates_command", required=True)
    c = cand.add_parser("add", help="add resumes (.txt .md .json .pdf .docx); each becomes a candidate")
    c.add_argument("files", nargs="+", metavar="FILE")
    c.add_argument("--id", help="the candidate id (one FILE only; default: the file name without suffix)")
    c.add_argument("--prefs", metavar="JSON", help='explicit preferences as JSON or @file, e.g. \'{"cities": ["上海"], '
                   '"remote": true, "job_types": ["full_time"], "salary_min": 300000, "currency": "CNY"}\'')
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_candidates_add)
    c = cand.add_parser("list", help="every candidate, and the drop-folder files in quarantine")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_candidates_list)
    c = cand.add_parser("show", help="a candidate's profile, preferences and exact embedding text")
    c.add_argument("candidate_id", metavar="ID")
    c.add_argument("--json", action="store_true", help="one JSON object")
    c.set_defaults(func=cmd_candidates_show)
    c = cand.add_parser("matches", help="a candidate's stored matches, best first, with the score's parts")
    c.add_argument("candidate_id", metavar="ID")
    c.add_argument("--top-k", type=_top_k, default=10, help="How many matches (1..100).")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_candidates_matches)
    c = cand.add_parser("delete", help="delete a candidate: profile, vectors, matches (and its drop-folder file)")
    c.add_argument("candidate_id", metavar="ID")
    c.set_defaults(func=cmd_candidates_delete)

    p = sub.add_parser("db", help="the embedded PostgreSQL server; the query service's login")
    p.add_argument("action", choices=["start", "stop", "status", "url", "service-role", "dagster-url"],
                   help="service-role: create (if missing) the query service's own reader login for this "
                        "database, grant it SELECT on the serving objects, print its URL; dagster-url: "
                        "Dagster's storage URL for this deployment (JOBPIPE_DAGSTER_STORAGE_URL)")
    p.add_argument("--role", help="service-role: the login's name (default: <database>_service)")
    p.add_argument("--password", nargs="?", const=True, default=None,
                   help="service-role: set this password (a random one without a value; the default off the "
                        "embedded server)")
    p.add_argument("--no-create", action="store_true",
                   help="service-role: only grant, to a login the server's administrator created")
    p.add_argument("--candidate-writer", action="store_true",
                   help="service-role: the login POST/DELETE /candidates write with instead (default name "
                        "<database>_candidates): it reads what the service reads and writes candidate tables only")
    p.set_defaults(func=cmd_db)

    p = sub.add_parser("ui", help="the Dagster UI (dagster dev) against jobpipe's instance")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=3000)
    p.add_argument("--demo-port", type=int, default=None, help="default: JOBPIPE_DEMO_PORT or 8765")
    p.set_defaults(func=cmd_ui)

    p = sub.add_parser("serve", help="the agent query service (HTTP)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("mcp", help="the same tools over MCP")
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8001)
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser("sources", help="sources file tools")
    src_sub = p.add_subparsers(dest="sources_command", required=True)
    check = src_sub.add_parser("check", help="validate a sources file without fetching anything")
    check.add_argument("file", nargs="?", type=Path)
    check.set_defaults(func=cmd_sources_check)
    accept = src_sub.add_parser("accept-close", help="let the next run of a source close past the close guard, once")
    accept.add_argument("name", help="the source whose mass close is real")
    accept.add_argument("--note", help="why (kept with the acceptance)")
    accept.add_argument("--withdraw", action="store_true", help="take a pending acceptance back")
    accept.set_defaults(func=cmd_sources_accept_close)

    p = sub.add_parser("status", help="per source: last run, outcome and counts, freshness, failing checks")
    p.add_argument("--sources", type=Path, help="sources file (default: JOBPIPE_SOURCES or the bundled demo)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_status)
    return parser


def _database_problem(exc: BaseException) -> str | None:
    """One line for a database that cannot be reached or used, or None when ``exc`` is not that.

    A wrong ``JOBPIPE_DATABASE_URL`` (malformed, wrong host or port, wrong password, no such
    database) used to end in a psycopg traceback; the operator needs the URL (without its
    password), what the server said and where the setting lives.
    """
    # lazy (start-up time): psycopg, the database layer and pydantic-settings, on the error path only
    import psycopg

    from jobpipe.config import get_settings
    from jobpipe.db import DatabaseSetupError, MigrationError
    from jobpipe.db.connection import redacted_url
    from jobpipe.db.server import EmbeddedServerError

    if isinstance(exc, (DatabaseSetupError, MigrationError, EmbeddedServerError)):
        return f"jobpipe: {exc}"
    if not isinstance(exc, (psycopg.OperationalError, psycopg.ProgrammingError, psycopg.InterfaceError)):
        return None
    if isinstance(exc, psycopg.ProgrammingError) and "connection info" not in str(exc) \
            and "invalid dsn" not in str(exc).lower() and "URI" not in str(exc):
        return None
    settings = get_settings()
    where = ("JOBPIPE_DATABASE_URL=" + redacted_url(settings.database_url)) if settings.database_url \
        else f"the embedded server in {settings.home}"
    reason = " ".join(str(exc).split()) or type(exc).__name__
    return f"jobpipe: cannot use the database ({where}): {reason}"


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except Exception as exc:
        from jobpipe.config import SettingsError  # lazy (start-up time): pydantic-settings

        # one line naming the variable or the database, not a traceback
        line = f"jobpipe: {exc}" if isinstance(exc, SettingsError) else _database_problem(exc)
        if line is None:
            raise
        print(line, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
