"""`--backend ray`: one Ray task per trial, on a local Ray instance or an existing cluster.

    voebench render grasp-l1 --backend ray                          # starts a private local Ray, stops it after
    voebench render grasp-l1 --backend ray --ray-address HOST:6379  # submits to a running cluster (`ray start`)

This module is the cluster side: the private local instance, each task's resources and retries. What a task runs
is given by the caller (`workers.ray_task`: the same `workers.produce` as the local backend, from a trial whose seed
depends only on (base seed, suite, test, index), with the configuration the parent resolved once), so the output is
byte-identical to a single local run whatever the cluster does. Ray keeps its worker processes alive between
tasks, so bpy is imported once per worker (warm workers); `LP_NUM_THREADS` (llvmpipe's thread count, read when bpy
loads) reaches the worker through `runtime_env` and is also set in the task before the first bpy import.

Resources per task (environment variables, for users who tune a cluster):
  VOEBENCH_RAY_CPUS      CPUs reserved per video task (default: --threads, else 1). Also llvmpipe's thread count.
  VOEBENCH_RAY_GPUS      GPUs reserved per video task when --device is not cpu (default 1; fractions share a GPU).
  VOEBENCH_RAY_RETRIES   retries of a task whose worker died (node lost, OOM kill, segfault; default 3).
  VOEBENCH_RAY_CRASH_ONCE  (tests) a folder; the first task to see it kills its own worker once.

A cluster's nodes must see --out at the same path (a shared filesystem) and have voebench installed in the same
environment. The local instance follows docs/performance.md: it listens on 127.0.0.1 only, keeps its session
files and auth token in a temporary folder (never in ~), reports no usage statistics and starts no dashboard.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import shutil
import tempfile
import traceback
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from voebench.errors import UsageError

if TYPE_CHECKING:
    from voebench.generator.config import RunConfig

# Set in the driver before Ray starts; inherited by every Ray process of a local instance.
LOCAL_RAY_ENV = {
    "RAY_USAGE_STATS_ENABLED": "0",  # no usage reporting
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # bind to 127.0.0.1 instead of the host's routable address
    "RAY_AUTH_MODE": "token",  # token auth, with the token in our temp dir (Ray would write ~/.ray/auth_token)
}


def task_resources(cfg: RunConfig) -> dict:
    """Ray resources of one video task."""
    cpus = float(os.environ.get("VOEBENCH_RAY_CPUS") or cfg.threads or 1)
    res = {"num_cpus": cpus}
    if cfg.device != "cpu":
        res["num_gpus"] = float(os.environ.get("VOEBENCH_RAY_GPUS") or 1)
    return res


class LocalRay:
    """A private single-node Ray instance: loopback only, session files and token in a temp dir, no usage
    stats, no dashboard. Restores the environment and removes the temp dir on stop()."""

    def __init__(self, num_cpus: int, num_gpus: int | None = None, object_store_mb: int = 256):
        import ray

        self.tmp = tempfile.mkdtemp(prefix="vb-ray-", dir="/tmp" if os.path.isdir("/tmp") else None)
        token = os.path.join(self.tmp, "auth_token")
        with open(os.open(token, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(secrets.token_hex(32))
        env = {**LOCAL_RAY_ENV, "RAY_AUTH_TOKEN_PATH": token}
        self._saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        # read once when ray is imported; ray may have been imported before we set the variable
        import ray._private.ray_constants as rc

        self._saved_cluster = rc.ENABLE_RAY_CLUSTER
        rc.ENABLE_RAY_CLUSTER = False
        _refresh_ray_config()
        for attempt in (1, 2):  # Ray gives its raylet 30 s to register; on a swamped machine, try once more
            try:
                ray.init(
                    num_cpus=num_cpus,
                    num_gpus=num_gpus,
                    include_dashboard=False,
                    log_to_driver=False,
                    object_store_memory=object_store_mb * 2**20,
                    _temp_dir=self.tmp,
                    _node_ip_address="127.0.0.1",
                    configure_logging=False,
                )
                break
            except Exception as e:
                if ray.is_initialized():
                    ray.shutdown()
                if attempt == 2 or "timed out during startup" not in str(e):
                    self.stop()
                    raise

    def stop(self):
        import ray
        import ray._private.ray_constants as rc

        try:
            if ray.is_initialized():
                ray.shutdown()
        finally:
            rc.ENABLE_RAY_CLUSTER = self._saved_cluster
            for k, v in self._saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            _refresh_ray_config()
            shutil.rmtree(self.tmp, ignore_errors=True)


def _refresh_ray_config():
    """Ray caches RAY_AUTH_MODE and the token when it is imported; make it re-read the environment."""
    try:
        from ray._raylet import AuthenticationTokenLoader, Config  # type: ignore[attr-defined]

        Config.initialize("")
        AuthenticationTokenLoader.instance().reset_cache()
    except Exception:  # noqa: BLE001 (other Ray versions: the environment, read at start, is enough)
        pass


def execute_ray(task_fn: Callable[..., Any], jobs: list, cfg: RunConfig, address: str | None = None) -> Iterator[tuple]:
    """Yield (trial, result, error) as Ray tasks finish (any order), like `workers.execute`; `jobs` are its
    (trial, known rejection) tasks, each run as `task_fn(job, cfg, threads)` in a Ray worker (a top-level
    function, which returns the (trial, result, error) itself)."""
    try:
        import ray
    except ImportError:
        raise UsageError("--backend ray needs Ray: pip install 'ray[default]'") from None
    jobs = list(jobs)
    if not jobs:
        return
    cfg = dataclasses.replace(cfg, out=os.path.abspath(cfg.out))  # workers may run elsewhere
    res = task_resources(cfg)
    threads = max(1, int(res["num_cpus"]))
    retries = int(os.environ.get("VOEBENCH_RAY_RETRIES", "3"))

    local = None
    if not ray.is_initialized():
        if address is None:
            workers = max(1, min(cfg.workers, len(jobs)))
            local = LocalRay(num_cpus=max(1, int(workers * res["num_cpus"])))  # GPUs: Ray detects them
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    try:
        if "num_gpus" in res and not ray.cluster_resources().get("GPU"):
            raise UsageError(f"--device {cfg.device}: the Ray cluster has no GPUs (tasks would wait forever)")
        # max_calls=0: keep workers (and their bpy) warm; Ray's default for GPU tasks is one call per process
        task = ray.remote(max_calls=0)(task_fn).options(
            **res,
            max_retries=retries,
            retry_exceptions=False,
            runtime_env={"env_vars": {"LP_NUM_THREADS": str(threads)}},
        )
        pending = {task.remote(job, cfg, threads): job for job in jobs}
        while pending:
            # everything finished within 0.2 s of the first one: one call per batch, not one per video
            done, _ = ray.wait(list(pending), num_returns=1)
            if len(pending) > 1:
                more, _ = ray.wait(
                    [r for r in pending if r not in done], num_returns=len(pending) - len(done), timeout=0.2
                )
                done = list(done) + list(more)
            for ref in done:
                job = pending.pop(ref)
                try:
                    yield ray.get(ref)
                except Exception:  # noqa: BLE001 (worker lost beyond max_retries, or task could not run: a failure)
                    yield job[0], None, traceback.format_exc()
    finally:
        if local is not None:
            local.stop()
        elif address is not None and ray.is_initialized():
            ray.shutdown()
