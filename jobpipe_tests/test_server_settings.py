"""The embedded server's memory settings follow the machine's memory (jobpipe.db.server)."""

from jobpipe.db import server
from jobpipe.db.server import GB, MB, memory_settings


def test_shared_buffers_is_a_quarter_of_the_memory():
    assert memory_settings(24 * GB) == {"shared_buffers": "6GB", "effective_cache_size": "12GB"}
    assert memory_settings(64 * GB)["shared_buffers"] == "16GB"
    assert memory_settings(6 * GB)["shared_buffers"] == "1536MB"


def test_a_small_machine_keeps_a_floor_and_unknown_memory_the_old_fixed_size():
    assert memory_settings(256 * MB) == {"shared_buffers": "128MB", "effective_cache_size": "256MB"}
    assert memory_settings(None) == {"shared_buffers": "1GB", "effective_cache_size": "4GB"}


def test_an_environment_setting_overrides_the_sized_one(monkeypatch):
    monkeypatch.delenv("JOBPIPE_PG_SHARED_BUFFERS", raising=False)
    monkeypatch.delenv("JOBPIPE_PG_EFFECTIVE_CACHE_SIZE", raising=False)
    assert server._wanted_settings(32 * GB)["shared_buffers"] == "8GB"
    monkeypatch.setenv("JOBPIPE_PG_SHARED_BUFFERS", "2GB")
    wanted = server._wanted_settings(32 * GB)
    assert wanted["shared_buffers"] == "2GB" and wanted["effective_cache_size"] == "16GB"
    assert wanted["maintenance_work_mem"] == "512MB"


def test_a_container_limit_below_the_machine_memory_wins(monkeypatch, tmp_path):
    limit = tmp_path / "memory.max"
    limit.write_text(f"{2 * GB}\n")
    monkeypatch.setattr(server, "CGROUP_LIMIT_FILES", (str(limit), str(tmp_path / "absent")))
    memory = server.machine_memory()
    assert memory is not None and memory <= 2 * GB
    limit.write_text("max\n")   # cgroup v2 without a limit: the machine's memory
    assert server.machine_memory() == server.os.sysconf("SC_PAGE_SIZE") * server.os.sysconf("SC_PHYS_PAGES")
