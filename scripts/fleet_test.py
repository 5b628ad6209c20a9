"""The fleet, tested as it is deployed (run by scripts/fleet_test.sh, which starts
PostgreSQL): three replicas of examples/mcp_server on one PostgreSQL, HAProxy
round robin in front of them, the official Python MCP SDK as every client (and,
for MCP Tasks, rmcp's client and the official TypeScript SDK's).

The `approve` tool is `create_transfers`: its effect is a row in the
`mcp_server_transfers` table, keyed by the approved run's idempotency key, with
an `attempts` count of every run of the tool that reached the database. The
checks count those rows. The policy of the example leaves transfers to someone
other than the requester: an operator approves each in the inbox (its JSON API),
and the client's "yes" then runs what the operator approved.

The `auto` tool `create_notes` writes one row per call (`mcp_server_notes`), which
the quota checks count; `create_reports` is only ever an MCP task, works for the
seconds it is asked and keeps one row per task (`mcp_server_reports`: the replica
and attempt holding it, when it started, stopped or was filed), which the long
task checks count.

After the checks of that fleet, a second one: OAUTH_REPLICAS replicas in OAuth
mode on the same PostgreSQL, behind their own HAProxy (`haproxy_config` writes
the base config with one `server` line per replica), taking tokens that npm
`oauth2-mock-server` (scripts/oauth_mock_server.mjs) issues to its `fleet-*`
clients: each client id is a user, the principal its quotas and tasks belong to.

Each check prints `ok <name>` or `FAILED <name>: <why>`; the last line is
`N passed, N failed`, and the exit status is 1 when anything failed.
"""

import asyncio
import ctypes
import json
import math
import os
import random
import signal
import socket
import ssl
import subprocess
import sys
import time
import traceback

import httpx2
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

SERVER = os.environ["FLEET_SERVER_BIN"]
HAPROXY = os.environ["FLEET_HAPROXY"]
HAPROXY_CFG = os.environ["FLEET_HAPROXY_CFG"]
PG_DIR = os.environ["FLEET_PG_DIR"]
PG_URL = os.environ["FLEET_PG_URL"]
PSQL = os.environ["FLEET_PSQL"]
POSTGRES_SH = os.environ["FLEET_POSTGRES_SH"]
FAKETIME_LIB = os.environ["FLEET_FAKETIME_LIB"]
BENCH = os.environ.get("FLEET_BENCH") == "1"
# rmcp's client speaking MCP Tasks, one request per run.
TASK_CLIENT = os.environ["FLEET_TASK_CLIENT"]
# The official TypeScript SDK's v2 client with the official Tasks extension
# (scripts/ts_task_client), and the Node it runs on.
NODE = os.environ["FLEET_NODE"]
TS_TASK_CLIENT = os.environ["FLEET_TS_TASK_CLIENT"]
# Only the checks named here (comma-separated), when set: a quicker run while
# working on one of them. CI runs them all.
ONLY = {name for name in os.environ.get("FLEET_CHECKS", "").split(",") if name}
# npm `oauth2-mock-server` (scripts/oauth_mock_server.mjs, beside its node_modules):
# the authorization server of the second fleet, whose replicas run in OAuth mode.
OAUTH_MOCK = os.environ["FLEET_OAUTH_MOCK"]

TOKEN = "fleet-internal-token"
INBOX_TOKEN = "fleet-inbox-token"
KEY = os.urandom(32).hex()
ROTATED_KEY = os.urandom(32).hex()
REQUEST_STATE_KEY = os.urandom(32).hex()
# The longest the checks hold the ledger locked (runs waiting inside the tool).
LOCK_SECONDS = 2.5
# Short, so a run left by a killed replica is taken over within the test; longer
# than any run here (the ledger lock is held 2 x LOCK_SECONDS at most): a run still
# going when its lease ends would be taken over while it runs.
LEASE_SECONDS = 8
# A caller's retry: how long it waits, and the most a check waits for everything.
RETRY_PAUSE = 0.2
DEADLINE = 150
# The quota of the `auto` tool `create_notes` on every replica, per principal: an
# hour's, so no call is refilled within the check's seconds and a principal's
# admitted calls are its burst, exactly this many at most.
NOTE_QUOTA = 20
# The static tokens: each names a client kind, the kind is the caller's principal.
TOKENS = {"internal": TOKEN, "copilot": "fleet-copilot-token", "external": "fleet-external-token"}
# The OAuth fleet: four replicas, each principal's quota of `create_notes` a
# short one that refills within the check (a count per second: the finest unit).
OAUTH_REPLICAS = 4
OAUTH_NOTE_QUOTA = 5
# The report tool's run (`create_reports`, only ever a task): long enough that a
# kill lands mid-run, short enough for CI.
REPORT_SECONDS = 10
# The bound a cancellation meets: the run reads it every second (a third of the
# lease, if shorter), plus one store round trip; stated with room for this
# shared, loaded machine.
CANCEL_BOUND = 3.0
# The checks run on the OAuth fleet (started after the others, when one is asked).
OAUTH_CHECKS = {
    "four_principals_quotas_hold_on_four_oauth_replicas_through_reauthentication_and_a_kill",
    "a_narrower_token_of_the_same_user_reaches_none_of_its_calls_on_the_fleet",
}

results = []


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def dies_with_this_script():
    """For Popen's preexec_fn: the child gets SIGTERM when this script ends, even
    by SIGKILL (prctl PR_SET_PDEATHSIG), so no replica or balancer outlives it."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def psql(sql):
    out = subprocess.run(
        [PSQL, "-X", "-A", "-t", "-q", "-d", PG_URL, "-c", sql],
        check=True, capture_output=True, text=True,
    )
    return out.stdout.strip()


def freeze_postgresql(seconds):
    """SIGSTOP the PostgreSQL server (its postmaster and every backend) for
    `seconds`, then SIGCONT: a database that stalls without closing a connection."""
    with open(os.path.join(PG_DIR, "data", "postmaster.pid")) as pid_file:
        postmaster = pid_file.readline().strip()
    children = subprocess.run(["pgrep", "-P", postmaster], capture_output=True, text=True).stdout.split()
    pids = [int(pid) for pid in [postmaster, *children]]
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(seconds)
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


def stop(process):
    """SIGTERM, then SIGKILL if it is still running 10 s later."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Replica:
    """One `mcp_server http --approvals-db postgres://...` process."""

    def __init__(self, name, quotas=f"create_notes={NOTE_QUOTA}/h", oauth=None):
        """`oauth`: (issuer, resource) for a replica in OAuth mode (one `/mcp`
        endpoint taking the issuer's tokens for `resource`), else the static
        tokens of each client kind."""
        self.name = name
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.quotas = quotas
        self.oauth = oauth
        self.log = open(os.path.join(PG_DIR, f"{name}.log"), "ab")

    def start(self, key=KEY, previous="", clock=None):
        """`clock`: a libfaketime offset (`+2h`, `-2h`) for this replica's clock."""
        skew = {"LD_PRELOAD": FAKETIME_LIB, "FAKETIME": clock} if clock else {}
        env = dict(
            os.environ,
            **skew,
            MCP_APPROVAL_KEY=key,
            MCP_APPROVAL_PREVIOUS_KEYS=previous,
            MCP_REQUEST_STATE_KEY=REQUEST_STATE_KEY,
            MCP_APPROVAL_RUN_LEASE_SECONDS=str(LEASE_SECONDS),
            MCP_REPLICA=self.name,
            MCP_TOKEN_INTERNAL=TOKEN,
            MCP_TOKEN_COPILOT=TOKENS["copilot"],
            MCP_TOKEN_EXTERNAL=TOKENS["external"],
            MCP_QUOTAS=self.quotas,
            MCP_INBOX_TOKEN=INBOX_TOKEN,
            # Behind HAProxy every client comes from its address (and wrk's
            # 64 connections go to one replica): the share per peer is lifted.
            MCP_CONNECTIONS_PER_PEER="100000",
        )
        mode = ["--oauth-issuer", self.oauth[0], "--resource", self.oauth[1]] if self.oauth else []
        self.process = subprocess.Popen(
            [SERVER, "http", "--addr", f"127.0.0.1:{self.port}", "--approvals-db", PG_URL, *mode],
            env=env, stdout=subprocess.PIPE, stderr=self.log, preexec_fn=dies_with_this_script,
        )
        line = self.process.stdout.readline().decode()
        if not line.startswith("listening on "):
            self.process.wait(5)
            raise RuntimeError(f"replica {self.name} did not start: {line!r} (see {self.log.name})")

    def freeze(self):
        """kill -STOP: the process stops where it is, its connections open (a
        replica paused by its host, a long garbage collection, a debugger).

        The signal is delivered asynchronously: on a busy machine a thread still
        running could answer a request sent after `kill` returned. So this waits,
        a second at most, until /proc shows every thread stopped (`T`, `t`) or
        gone (`Z`, `X`, or no longer listed). It never raises: a raise here would
        leave the replica frozen for every later case, and a wait that runs out
        only leaves the case's own bounds to judge."""
        self.process.send_signal(signal.SIGSTOP)
        tasks = f"/proc/{self.process.pid}/task"
        deadline = time.monotonic() + 1
        while time.monotonic() < deadline:
            states = []
            try:
                for task in os.listdir(tasks):
                    try:
                        with open(f"{tasks}/{task}/stat") as stat:
                            # The state follows the command name in parentheses.
                            states.append(stat.read().rsplit(")", 1)[1].split()[0])
                    except (FileNotFoundError, ProcessLookupError, IndexError):
                        continue  # a thread that ended while it was read
            except FileNotFoundError:
                return  # the process itself is gone
            if all(state in ("T", "t", "Z", "X") for state in states):
                return
            time.sleep(0.001)

    def thaw(self):
        self.process.send_signal(signal.SIGCONT)

    def kill(self):
        """kill -9: no goodbye, requests in flight are cut."""
        self.process.kill()
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            stop(self.process)


def haproxy_config(replicas, name):
    """examples/mcp_server/fleet/haproxy.cfg for any number of replicas: a copy
    (in the cluster's directory) whose `server` lines are one per replica, each
    named as the replica and reading its address from FLEET_<NAME>."""
    with open(HAPROXY_CFG) as base:
        lines = [line for line in base.read().splitlines() if not line.lstrip().startswith("server ")]
    lines += [f'    server {replica.name} "${{FLEET_{replica.name.upper()}}}"' for replica in replicas]
    path = os.path.join(PG_DIR, f"haproxy-{name}.cfg")
    with open(path, "w") as config:
        config.write("\n".join(lines) + "\n")
    return path


class Balancer:
    def __init__(self, replicas, name="fleet", port=None):
        """HAProxy round robin over `replicas`, on `port` (a free one if None)."""
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, FLEET_BIND=f"127.0.0.1:{self.port}")
        for replica in replicas:
            env[f"FLEET_{replica.name.upper()}"] = f"127.0.0.1:{replica.port}"
        config = haproxy_config(replicas, name)
        check = subprocess.run([HAPROXY, "-c", "-q", "-f", config], env=env, capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"haproxy refused its config: {check.stderr}")
        self.process = subprocess.Popen(
            [HAPROXY, "-f", config, "-db"], env=env,
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(PG_DIR, f"haproxy-{name}.log"), "ab"),
            preexec_fn=dies_with_this_script,
        )
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("haproxy did not start")

    def stop(self):
        stop(self.process)


async def never_asked(context, params):
    """The clients answer approvals themselves (`present`), never when asked."""
    raise AssertionError(f"asked unexpectedly: {params.message}")


# One TLS context for every HTTP client: httpx builds a new one per client
# otherwise (loading the CA bundle: about 28 ms of CPU each here), synchronously,
# which stalls the one event loop that drives every simulated client. The bench
# opens an inbox client per approval, so that alone capped it near 35 approvals/s
# and showed up in every other client's resume latency. The URLs are plain HTTP.
TLS = ssl.create_default_context()


def http_client(**options):
    """An httpx client sharing TLS (see above)."""
    return httpx2.AsyncClient(verify=TLS, **options)


def client(base, elicits=True, kind="internal"):
    http = http_client(headers={"Authorization": f"Bearer {TOKENS[kind]}"}, timeout=30)
    transport = streamable_http_client(f"{base}/mcp/{kind}", http_client=http)
    # Saying it can elicit is what makes the server ask with input-required.
    if not elicits:
        return Client(transport, mode="2026-07-28", cache=None)
    return Client(transport, mode="2026-07-28", cache=None, elicitation_callback=never_asked)


def arguments(reference):
    return {"reference": reference, "amount_cents": 100 + len(reference)}


async def ask(mcp, reference):
    """Calls the `approve` tool: it does not run, the server asks for approval."""
    asked = await mcp.session.call_tool("create_transfers", arguments(reference), allow_input_required=True)
    assert isinstance(asked, types.InputRequiredResult), asked
    assert list(asked.input_requests) == ["approval"], asked
    return asked.request_state


def text(result):
    return " ".join(getattr(block, "text", "") for block in result.content)


async def present(mcp, reference, state):
    """Presents the user's acceptance of one approval: `ran`, `used`, or
    `retry: why` (a clear retryable error, or the load balancer's 502)."""
    try:
        result = await mcp.call_tool(
            "create_transfers", arguments(reference),
            input_responses={"approval": types.ElicitResult(action="accept")},
            request_state=state,
        )
    except Exception as error:  # noqa: BLE001 - a cut connection, a 502: the caller retries
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        return f"retry: {type(error).__name__}: {error}"
    message = text(result)
    if not result.is_error:
        assert result.structured_content == {"transferred": 100 + len(reference), "reference": reference}, result
        return "ran"
    if message.startswith("this approved call already ran, with the result ") \
            and f'"reference":"{reference}"' in message:
        # Its run ended elsewhere (another copy, a runner): told that it ran, with
        # the result the store kept.
        return "used"
    if "it was already used, and an approved call runs once" in message:
        return "used"
    if "this run was taken over by attempt" in message:
        # An attempt that lost its claim (frozen past its lease): fenced, and
        # its caller is told what the attempt that took over came to.
        return "superseded"
    if "try again" in message:
        return f"retry: {message}"
    raise AssertionError(f"{reference}: neither ran, used nor retryable: {message}")


async def approve_in_inbox(base, references):
    """The operator approves each call of `references` in the inbox, over its JSON
    API (the listing shows a page at a time): THE decision, made by someone other
    than the requester."""
    wanted = set(references)
    async with http_client(headers={"Authorization": f"Bearer {INBOX_TOKEN}"}, timeout=30) as http:
        while wanted:
            listed = (await http.get(f"{base}/approvals/api/pending")).json()
            page = [item["pending"] for item in listed["pending"]
                    if item["pending"]["arguments"].get("reference") in wanted]
            assert page, f"{len(wanted)} calls never reached the inbox: {sorted(wanted)[:3]}"
            for pending in page:
                decided = await http.post(
                    f"{base}/approvals/api/decide",
                    headers={"x-csrf-token": listed["csrf_token"]},
                    json={"pending": pending, "decision": "approve"},
                )
                assert decided.status_code == 200, decided.text
                wanted.discard(pending["arguments"]["reference"])


async def ask_all(base, references, clients=8):
    states = {}
    queue = list(references)

    async def worker():
        async with client(base) as mcp:
            await mcp.list_tools()
            while queue:
                reference = queue.pop()
                states[reference] = await ask(mcp, reference)

    await asyncio.gather(*(worker() for _ in range(clients)))
    await approve_in_inbox(base, references)
    return states


async def resume_all(base, states, copies=3, clients=8, during=None, slowest=None):
    """Each approval presented `copies` times, shuffled over `clients` clients at
    once; a retryable answer is presented again until it is `ran` or `used`.
    `during(done)` runs beside them (a kill, a restart). Returns the outcomes and
    the retryable errors seen; `slowest[0]`, when given, becomes the longest any
    one presentation took."""
    presentations = [reference for reference in states for _ in range(copies)]
    random.shuffle(presentations)
    outcomes = {reference: [] for reference in states}
    retries = []
    done = [0]
    started = time.monotonic()

    async def worker(share):
        share = list(share)
        while share:
            # A cut connection may end the SDK's session: the caller connects again.
            try:
                async with client(base) as mcp:
                    await mcp.list_tools()
                    while share:
                        reference = share[0]
                        begun = time.monotonic()
                        outcome = await present(mcp, reference, states[reference])
                        if slowest is not None:
                            slowest[0] = max(slowest[0], time.monotonic() - begun)
                        if outcome.startswith("retry"):
                            retries.append(outcome)
                            assert time.monotonic() - started < DEADLINE, f"{reference} still failing: {outcome}"
                            await asyncio.sleep(RETRY_PAUSE)
                            continue
                        outcomes[reference].append(outcome)
                        share.pop(0)
                        done[0] += 1
            except AssertionError:
                raise
            except Exception as error:  # noqa: BLE001 - the connection, not the check, failed
                while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
                    error = error.exceptions[0]
                if isinstance(error, AssertionError):
                    raise error from None
                retries.append(f"retry: {type(error).__name__}: {error}")
                assert time.monotonic() - started < DEADLINE, f"still failing: {error}"
                await asyncio.sleep(RETRY_PAUSE)

    workers = [worker(presentations[i::clients]) for i in range(clients)]
    if during:
        workers.append(during(done, len(presentations)))
    await asyncio.gather(*workers)
    return outcomes, retries


class LedgerLock:
    """Holds the transfers table locked, so every run of the tool waits inside
    the tool (claimed, not complete): the moment a kill or a restart cuts runs
    mid-way, for sure. Used as `with LedgerLock() as lock:`, it is released when
    the block ends, raised or not: a lock left held would stall every later
    check's ledger writes, one failure turning into many."""

    def __init__(self):
        self.session = subprocess.Popen(
            [PSQL, "-X", "-q", "-d", PG_URL], stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
        )
        self.session.stdin.write("BEGIN; LOCK TABLE mcp_server_transfers IN EXCLUSIVE MODE;\n")
        self.session.stdin.flush()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.release()

    @staticmethod
    def waiting(replica=None):
        """How many runs of the tool wait on the lock (on `replica`, if named)."""
        name = f"AND application_name = 'mcp_server {replica.name}'" if replica else ""
        return int(psql(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            f"AND query LIKE 'INSERT INTO mcp_server_transfers%' {name}"
        ))

    async def until_waiting(self, replicas, total):
        """Waits until `total` runs wait (or LOCK_SECONDS pass), at least one of
        them on one of `replicas` (any replica if None); returns the replica with
        the most runs waiting and how many wait there (None and the total when
        `replicas` is None).

        The balancer decides where each run goes, and on a loaded machine its
        health check may take a slow replica out for a while: a check that needs
        runs cut on one replica takes the replica that has them."""
        deadline = time.monotonic() + LOCK_SECONDS
        while True:
            if replicas:
                counts = [(self.waiting(replica), replica) for replica in replicas]
                on_replica, replica = max(counts, key=lambda count: count[0])
            else:
                on_replica, replica = self.waiting(), None
            if on_replica >= 1 and (self.waiting() >= total or time.monotonic() > deadline):
                return replica, on_replica
            if time.monotonic() > deadline + LOCK_SECONDS:
                raise AssertionError(f"runs waiting: {on_replica} on one replica, {self.waiting()} in all")
            await asyncio.sleep(0.05)

    def release(self):
        if self.session.stdin.closed:
            return
        try:
            self.session.stdin.write("COMMIT;\n")
            self.session.stdin.close()
        except OSError:
            pass  # the restart ended the session, and its lock
        self.session.wait(10)


def ledger(prefix):
    """{reference: (rows, attempts)} of the transfers whose reference starts with prefix."""
    rows = psql(
        "SELECT reference, count(*), sum(attempts) FROM mcp_server_transfers "
        f"WHERE reference LIKE '{prefix}%' GROUP BY reference"
    )
    found = {}
    for line in rows.splitlines():
        reference, count, attempts = line.split("|")
        found[reference] = (int(count), int(attempts))
    return found


def assert_once(prefix, states, outcomes, reruns_allowed=0):
    """Nothing approved is lost, nothing runs twice: one transfer per approval;
    every presentation ended `ran` or `used`, at most one `ran` each. A run cut by
    a kill or a restart after its effect may reach the tool again (attempts 2),
    at most `reruns_allowed` times in all; its transfer is still one row."""
    found = ledger(prefix)
    assert sorted(found) == sorted(states), f"{len(states)} approved, {len(found)} transferred"
    assert all(count == 1 for count, _ in found.values()), found
    reruns = sum(attempts - 1 for _, attempts in found.values())
    assert reruns <= reruns_allowed, f"{reruns} re-runs reached the tool (allowed {reruns_allowed})"
    for reference, seen in outcomes.items():
        assert seen.count("ran") <= 1, (reference, seen)
        assert set(seen) <= {"ran", "used", "superseded"}, (reference, seen)
    return reruns


def reports(prefix):
    """{reference: (replica, attempt, attempts, started, stopped, finished)} of the
    reports filed under `prefix` (times as seconds since the epoch, or None)."""
    found = {}
    for line in psql(
        "SELECT reference, replica, attempt, attempts, extract(epoch FROM started_at), "
        "coalesce(extract(epoch FROM stopped_at)::text, ''), coalesce(extract(epoch FROM finished_at)::text, '') "
        f"FROM mcp_server_reports WHERE reference LIKE '{prefix}%'"
    ).splitlines():
        reference, replica, attempt, attempts, started, stopped, finished = line.split("|")
        found[reference] = (replica, int(attempt), int(attempts), float(started),
                            float(stopped) if stopped else None, float(finished) if finished else None)
    return found


def task_request(url, token, *args):
    """One request of rmcp's client with the tasks extension to the MCP endpoint
    `url`: (its answer's JSON, None), or (None, the error it printed)."""
    out = subprocess.run([TASK_CLIENT, url, token, *args], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        return None, out.stderr.strip().removeprefix("mcp_task_client: ")
    return json.loads(out.stdout), None


def task_client(base, *args):
    """One request of rmcp's client, on the `internal` endpoint of `base`; its answer."""
    answer, error = task_request(f"{base}/mcp/internal", TOKEN, *args)
    assert error is None, f"mcp_task_client {args[0]}: {error}"
    return answer


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def bench(lb, direct):
    """The fleet's figures (FLEET_BENCH=1; BENCHMARKS.md): approvals per second
    through HAProxy and three replicas (request, then the user's acceptance,
    which decides and resumes), the resume latency, and what the load balancer
    and the approval store add to one call."""
    clients, total = 16, 1600
    references = [f"bench-{i}" for i in range(total)]
    latencies = []
    queue = list(references)

    async def worker():
        async with client(lb) as mcp:
            await mcp.list_tools()
            while queue:
                reference = queue.pop()
                state = await ask(mcp, reference)
                await approve_in_inbox(lb, [reference])
                started = time.perf_counter()
                outcome = await present(mcp, reference, state)
                latencies.append(time.perf_counter() - started)
                assert outcome == "ran", outcome

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    elapsed = time.perf_counter() - started
    assert_once("bench-", dict.fromkeys(references), {})
    print(f"bench: {total} approvals by {clients} clients through HAProxy: {total / elapsed:.0f} approvals/s; "
          f"resume latency median {percentile(latencies, 0.5) * 1000:.2f} ms, "
          f"p99 {percentile(latencies, 0.99) * 1000:.2f} ms", flush=True)

    async def call_latency(base, count=400):
        """One client's `get_tasks` calls, one at a time: the plain cost of a call."""
        took = []
        async with client(base) as mcp:
            await mcp.list_tools()
            for _ in range(count):
                begun = time.perf_counter()
                result = await mcp.call_tool("get_tasks", {})
                took.append(time.perf_counter() - begun)
                assert not result.is_error, result
        return percentile(took, 0.5)

    async def resume_latency(base, prefix, count=200):
        """One client's resumes, one at a time: a call plus the store's work."""
        took = []
        async with client(base) as mcp:
            await mcp.list_tools()
            for i in range(count):
                state = await ask(mcp, f"{prefix}-{i}")
                await approve_in_inbox(base, [f"{prefix}-{i}"])
                begun = time.perf_counter()
                assert await present(mcp, f"{prefix}-{i}", state) == "ran"
                took.append(time.perf_counter() - begun)
        return percentile(took, 0.5)

    plain_direct = await call_latency(direct)
    plain_lb = await call_latency(lb)
    resume_direct = await resume_latency(direct, "bench-direct")
    print(f"bench: one client, one call at a time (median): get_tasks direct {plain_direct * 1000:.2f} ms, "
          f"through HAProxy {plain_lb * 1000:.2f} ms (+{(plain_lb - plain_direct) * 1000:.2f} ms); "
          f"a resume direct {resume_direct * 1000:.2f} ms (+{(resume_direct - plain_direct) * 1000:.2f} ms "
          f"for the store and the ledger write over a plain call)", flush=True)

    # The load benchmark's fleet hook (wrk, many connections): the fleet against
    # one replica alone, `get_tasks` and `tools/list` on the external endpoint.
    if subprocess.run(["sh", "-c", "command -v wrk"], capture_output=True).returncode == 0:
        env = dict(
            os.environ,
            LOAD_BIN_DIR=os.path.dirname(SERVER),
            LOAD_SERVERS="example",
            LOAD_CONNECTIONS=os.environ.get("LOAD_CONNECTIONS", "1 16 64"),
            LOAD_ROUNDS=os.environ.get("LOAD_ROUNDS", "1"),
            LOAD_FLEET_URL=f"{lb}/mcp/external",
            LOAD_FLEET_TOKEN="fleet-external-token",
        )
        script = os.path.join(os.path.dirname(POSTGRES_SH), "load_bench.sh")
        out = await asyncio.to_thread(subprocess.run, ["bash", script, "5"], env=env, capture_output=True, text=True)
        print(out.stdout, flush=True)
        assert out.returncode == 0, out.stderr


async def check(name, body, replicas=()):
    """Runs one check and records its result. After a failure, every replica
    of `replicas` is thawed and a dead one started again, so that one check's
    failure half-way (a replica left frozen or killed) fails no later check."""
    started = time.monotonic()
    try:
        await body()
    except Exception as error:  # noqa: BLE001 - every failure is reported
        for replica in replicas:
            replica.thaw()
            if replica.process.poll() is not None:
                replica.start()
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        if os.environ.get("FLEET_TRACE") == "1":
            traceback.print_exception(error)
        results.append((name, detail))
        print(f"FAILED {name}: {detail}", flush=True)
    else:
        results.append((name, None))
        print(f"ok {name} ({time.monotonic() - started:.1f} s)", flush=True)


async def main():
    replicas = [Replica(f"r{i}") for i in (1, 2, 3)]
    balancer = None
    try:
        for replica in replicas:
            replica.start()
        balancer = Balancer(replicas)
        await fleet(replicas, balancer)
    finally:
        if balancer:
            balancer.stop()
        for replica in replicas:
            replica.stop()
    if not ONLY or ONLY & OAUTH_CHECKS:
        await oauth_fleet()
    failed = sum(1 for _, detail in results if detail is not None)
    print(f"fleet: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


async def fleet(replicas, balancer):
    """Runs every check on the started fleet; 0 when all passed."""
    r1, r2, r3 = replicas
    lb = balancer.url

    async def asked_on_one_decided_on_another_resumed_on_a_third():
        async with client(r1.url) as mcp:
            await mcp.list_tools()
            state = await ask(mcp, "split-1")
        async with http_client(headers={"Authorization": f"Bearer {INBOX_TOKEN}"}) as http:
            listed = (await http.get(f"{r2.url}/approvals/api/pending")).json()
            waiting = [item["pending"] for item in listed["pending"]
                       if item["pending"]["arguments"].get("reference") == "split-1"]
            assert len(waiting) == 1, listed
            decided = await http.post(
                f"{r2.url}/approvals/api/decide",
                headers={"x-csrf-token": listed["csrf_token"]},
                json={"pending": waiting[0], "decision": "approve"},
            )
            assert decided.status_code == 200, decided.text
            audit = (await http.get(f"{r1.url}/approvals/api/decisions")).json()
            assert [(d["verdict"], d["decided_by"]) for d in audit["decisions"]
                    if d["call_id"] == waiting[0]["call_id"]] == [("approved", "local|operator")], audit
        async with client(r3.url) as mcp:
            await mcp.list_tools()
            assert await present(mcp, "split-1", state) == "ran"
        for replica in (r1, r2, r3):
            async with client(replica.url) as mcp:
                await mcp.list_tools()
                assert await present(mcp, "split-1", state) == "used"
        assert psql("SELECT replica, attempts FROM mcp_server_transfers WHERE reference = 'split-1'") == "r3|1"

    async def two_hundred_approvals_three_times_each_by_eight_clients_run_once():
        states = await ask_all(lb, [f"burst-{i}" for i in range(200)])
        outcomes, retries = await resume_all(lb, states)
        assert_once("burst-", states, outcomes)
        # Without a fault, the only retryable answer is "another request is running it".
        assert all("another request is running it now" in r for r in retries), retries[:3]
        assert all(seen.count("ran") == 1 for seen in outcomes.values()), "every caller who got there first saw the result"
        served = psql("SELECT count(DISTINCT replica) FROM mcp_server_transfers WHERE reference LIKE 'burst-%'")
        assert served == "3", f"the transfers ran on {served} replicas, not on all three"

    async def a_replica_killed_mid_run_loses_nothing_and_runs_nothing_twice():
        states = await ask_all(lb, [f"kill-{i}" for i in range(120)])
        cut, takeover, victim = [], [], []

        async def kill_one(done, total):
            while done[0] < total // 4:
                await asyncio.sleep(0.01)
            with LedgerLock() as lock:
                # Every client's run waits inside the tool, some of them on the
                # replica killed.
                replica, waiting = await lock.until_waiting(replicas, 8)
                victim.append(replica)
                cut.append(waiting)
                replica.kill()
                killed = time.monotonic()
            # The takeover time: from the kill until every run cut on it ran
            # elsewhere (the lease, then a caller's retry or a runner's pass).
            over = "SELECT count(*) FROM mcp_server_transfers WHERE reference LIKE 'kill-%' AND (attempt > 1 OR attempts > 1)"
            while int(psql(over)) < cut[0] and time.monotonic() - killed < 30:
                await asyncio.sleep(0.1)
            takeover.append(time.monotonic() - killed)
            print(f"  kill -9: the runs cut on {victim[0].name} ran elsewhere {takeover[0]:.1f} s after the kill "
                  f"(lease {LEASE_SECONDS} s)", flush=True)

        try:
            outcomes, retries = await resume_all(lb, states, during=kill_one)
        finally:
            for replica in victim:
                replica.start()
        reruns = assert_once("kill-", states, outcomes, reruns_allowed=8)
        # The runs the killed replica had claimed and not completed ran again elsewhere, after the
        # lease (attempt 2). A cut run's INSERT may still commit after the kill (its
        # database session outlives the process): then the row counts 2 attempts.
        taken_over = int(psql(
            "SELECT count(*) FROM mcp_server_transfers WHERE reference LIKE 'kill-%' AND (attempt > 1 OR attempts > 1)"
        ))
        name = victim[0].name
        assert taken_over == cut[0], f"{cut[0]} runs cut on {name}, {taken_over} taken over: " + psql(
            "SELECT string_agg(reference || ' ' || replica || ' ' || attempt || ' ' || attempts, ', ') "
            f"FROM mcp_server_transfers WHERE reference LIKE 'kill-%' AND (attempt > 1 OR attempts > 1 OR replica = '{name}')"
        ) + f" retries: {retries}"
        cut_off = [r for r in retries if "another request is running it now" not in r]
        assert len(cut_off) >= cut[0], f"the callers of the {cut[0]} cut runs saw {cut_off}"
        print(f"  kill -9: {cut[0]} runs cut mid-way, {taken_over} taken over after the lease, "
              f"{reruns} re-runs reached the tool; callers saw e.g. {cut_off[:1]}", flush=True)

    async def a_postgresql_restart_mid_run_loses_nothing_and_runs_nothing_twice():
        states = await ask_all(lb, [f"restart-{i}" for i in range(120)])

        async def restart_postgres(done, total):
            while done[0] < total // 4:
                await asyncio.sleep(0.01)
            with LedgerLock() as lock:
                await lock.until_waiting(None, 8)
                # Down for a second: runs that end then are recorded once it is back.
                await asyncio.to_thread(subprocess.run, ["bash", POSTGRES_SH, "restart", PG_DIR, "1"], check=True)

        outcomes, retries = await resume_all(lb, states, during=restart_postgres)
        reruns = assert_once("restart-", states, outcomes, reruns_allowed=8)
        assert retries, "the restart cut nothing: no caller saw an error to retry"
        assert any("the approval store failed, nothing ran; try again" in r or "the ledger is unreachable, try again" in r
                   for r in retries), sorted(set(retries))[:5]
        print(f"  restart: {len(retries)} retryable answers, {reruns} runs taken over after the lease", flush=True)

    async def the_requester_cannot_approve_its_own_transfer():
        async with client(lb) as mcp:
            await mcp.list_tools()
            state = await ask(mcp, "own-1")
            # The client's user says yes: not theirs to decide, nothing runs.
            refused = await mcp.call_tool(
                "create_transfers", arguments("own-1"),
                input_responses={"approval": types.ElicitResult(action="accept")},
                request_state=state,
            )
            assert refused.is_error, refused
            assert "the requester may not decide it" in text(refused), text(refused)
            assert psql("SELECT count(*) FROM mcp_server_transfers WHERE reference = 'own-1'") == "0"
            # The operator approves in the inbox; the same "yes" now runs it, once.
            await approve_in_inbox(lb, ["own-1"])
            assert await present(mcp, "own-1", state) == "ran"
            assert await present(mcp, "own-1", state) == "used"
        audit = psql(
            "SELECT string_agg(decided_by, ',') FROM toolkit_approval_refusals r "
            "WHERE r.tool = 'create_transfers' AND EXISTS (SELECT 1 FROM toolkit_pending_approvals p "
            "WHERE p.call_id = r.call_id AND p.arguments LIKE '%own-1%')"
        )
        assert audit == "the requester", f"the refusal is in the audit: {audit!r}"

    async def a_call_approved_for_a_client_that_cannot_elicit_runs_on_the_fleet():
        async with client(lb, elicits=False) as mcp:
            await mcp.list_tools()
            result = await mcp.call_tool("create_transfers", arguments("away-1"))
            assert result.is_error and "waits for a person's approval" in text(result), result
            pending = result.meta["toolkit/pending_approval"]
        await approve_in_inbox(lb, ["away-1"])
        # Nobody comes back for it. The decision is made two minutes older, past
        # the replicas' runner grace (60 s): one replica's runner runs it, once.
        psql(
            "UPDATE toolkit_approval_decisions SET decided_at = decided_at - 120 WHERE call_id IN "
            "(SELECT call_id FROM toolkit_pending_approvals WHERE arguments LIKE '%\"away-1\"%')"
        )
        started = time.monotonic()
        async with http_client(headers={"Authorization": f"Bearer {INBOX_TOKEN}"}, timeout=30) as http:
            # What the requester (or anyone it told) reads back later: the one call.
            one = {"principal": pending["principal"], "call_id": pending["call_id"]}
            while True:
                audit = (await http.get(f"{lb}/approvals/api/decisions", params=one)).json()
                assert [d["call_id"] for d in audit["decisions"]] == [one["call_id"]], audit
                runs = [d["run"] for d in audit["decisions"] if d["run"] and d["run"]["done"]]
                if runs:
                    took = time.monotonic() - started
                    break
                assert time.monotonic() - started < 20, "no replica's runner ran it"
                await asyncio.sleep(0.2)
        assert runs[0]["done"] and runs[0]["outcome"]["status"] == "ran", runs
        assert runs[0]["outcome"]["result"] == {"transferred": 100 + len("away-1"), "reference": "away-1"}, runs
        await asyncio.sleep(4)  # two more passes of every runner: nothing runs again
        assert psql("SELECT count(*), sum(attempts) FROM mcp_server_transfers WHERE reference = 'away-1'") == "1|1"
        replica = psql("SELECT replica FROM mcp_server_transfers WHERE reference = 'away-1'")
        print(f"  runner: its outcome was read back {took:.1f} s after its decision was due; it ran on {replica}",
              flush=True)

    async def a_replica_frozen_past_its_lease_is_fenced_and_reports_no_second_run():
        states = await ask_all(lb, [f"frozen-{i}" for i in range(60)])
        frozen = []
        taken_over = {}
        victim = []

        async def freeze_one(done, total):
            while done[0] < total // 4:
                await asyncio.sleep(0.01)
            with LedgerLock() as lock:
                # Runs wait inside the tool, some on the replica frozen; it stops
                # there with its connections open, and the runs' writes reach the
                # ledger meanwhile.
                replica, _ = await lock.until_waiting(replicas, 8)
                victim.append(replica)
                replica.freeze()
            # The runs whose claim stays open while every other replica's ended:
            # the frozen one's. (A claim's key is the SHA-256 of `[principal, call_id]`, the
            # principal as its parts: `{"iss":"local","sub":"internal"}` for the
            # key `local|internal`.)
            open_runs = (
                "SELECT p.arguments::json->>'reference' FROM toolkit_pending_approvals p "
                "JOIN toolkit_approval_claims c ON c.key = encode(sha256(convert_to("
                "'[{\"iss\":\"' || split_part(p.principal, '|', 1) || '\",\"sub\":\"' "
                "|| split_part(p.principal, '|', 2) || '\"},\"' || p.call_id || '\"]', 'UTF8')), 'hex') "
                "WHERE NOT c.done AND p.arguments LIKE '%frozen-%'"
            )
            await asyncio.sleep(1)
            first = set(psql(open_runs).split())
            await asyncio.sleep(1)
            frozen.extend(sorted(first & set(psql(open_runs).split())))
            # Past the frozen runs' lease, their callers' retries reach another
            # replica, which takes each run over (attempt 2).
            await asyncio.sleep(LEASE_SECONDS + 1)
            other = next(other for other in replicas if other is not replica)
            async with client(other.url) as mcp:
                await mcp.list_tools()
                for reference in frozen:
                    outcome = await present(mcp, reference, states[reference])
                    while outcome.startswith("retry"):
                        await asyncio.sleep(RETRY_PAUSE)
                        outcome = await present(mcp, reference, states[reference])
                    taken_over[reference] = outcome
            # It wakes: its runs finish, and are fenced off.
            replica.thaw()

        try:
            outcomes, retries = await resume_all(lb, states, during=freeze_one)
        finally:
            for replica in victim:
                replica.thaw()  # a no-op once thawed; after a failure, not left frozen
        assert frozen, f"no run was frozen on {victim[0].name}"
        for reference, outcome in taken_over.items():
            outcomes[reference].append(outcome)
        reruns = assert_once("frozen-", states, outcomes, reruns_allowed=len(frozen))
        assert all(seen.count("ran") == 1 for seen in outcomes.values()), "one ran per approval"
        # HAProxy's health check takes the frozen replica out of rotation within
        # seconds and cuts the requests it held; their callers retry on the others,
        # and past the lease one of those retries or this check's own presentation
        # takes the run over: whichever came second hears "used".
        assert all(taken_over[reference] in ("ran", "used") for reference in frozen), taken_over
        held = [reference for reference in frozen if "superseded" in outcomes[reference]]
        assert not held, f"callers waited on the frozen {victim[0].name} until it thawed: {held}"
        # Each frozen run's one row is attempt 2's: the frozen write, whether it reached
        # the ledger before r2's or after, changed nothing of it.
        second = psql(
            "SELECT string_agg(reference || ' ' || attempt, ', ' ORDER BY reference) "
            "FROM mcp_server_transfers WHERE reference LIKE 'frozen-%' AND attempt > 1"
        )
        expected = ", ".join(f"{reference} 2" for reference in sorted(frozen))
        assert second == expected, f"taken over: {second!r}, expected {expected!r}"
        print(f"  SIGSTOP past the lease: {len(frozen)} runs frozen on {victim[0].name}, each taken over "
              f"(attempt 2), their callers cut when it left the rotation; {reruns} re-runs reached "
              f"the tool", flush=True)

    async def replicas_two_hours_apart_agree_on_every_approval():
        # The clock libfaketime gives a process here, checked first.
        ahead = subprocess.run(["date", "+%s"], capture_output=True, text=True, check=True,
                               env=dict(os.environ, LD_PRELOAD=FAKETIME_LIB, FAKETIME="+2h"))
        assert abs(int(ahead.stdout) - time.time() - 7200) < 60, ahead.stdout
        r2.stop()
        r2.start(clock="+2h")
        r3.stop()
        r3.start(clock="-2h")
        try:
            # Asked on one, decided in the inbox of another (a CSRF token that a
            # third issued), resumed on the third: every time decision reads the
            # database's clock, so none of them disagrees.
            for number, (asker, decider, resumer) in enumerate([(r1, r2, r3), (r3, r1, r2), (r2, r3, r1),
                                                                (r2, r2, r3), (r3, r3, r2), (r1, r3, r2)]):
                reference = f"skew-{number}"
                async with client(asker.url) as mcp:
                    await mcp.list_tools()
                    state = await ask(mcp, reference)
                async with http_client(headers={"Authorization": f"Bearer {INBOX_TOKEN}"}) as http:
                    issuer = resumer  # the replica whose page gave the token
                    token = (await http.get(f"{issuer.url}/approvals/api/pending")).json()["csrf_token"]
                    listed = (await http.get(f"{decider.url}/approvals/api/pending")).json()
                    waiting = [item["pending"] for item in listed["pending"]
                               if item["pending"]["arguments"].get("reference") == reference]
                    assert len(waiting) == 1, listed
                    decided = await http.post(
                        f"{decider.url}/approvals/api/decide",
                        headers={"x-csrf-token": token},
                        json={"pending": waiting[0], "decision": "approve"},
                    )
                    assert decided.status_code == 200, (asker.name, decider.name, resumer.name, decided.text)
                async with client(resumer.url) as mcp:
                    await mcp.list_tools()
                    outcome = await present(mcp, reference, state)
                    assert outcome == "ran", (asker.name, decider.name, resumer.name, outcome)
                    assert await present(mcp, reference, state) == "used"
            assert psql("SELECT count(*) FROM mcp_server_transfers WHERE reference LIKE 'skew-%'") == "6"
        finally:
            r2.stop()
            r2.start()
            r3.stop()
            r3.start()

    async def a_stalled_postgresql_answers_within_seconds_and_loses_nothing():
        for pause in (40, 75):
            references = [f"stall{pause}-{i}" for i in range(12)]
            states = await ask_all(lb, references)
            slowest = [0.0]  # the longest any one presentation waited

            async def stall(done, total):
                while done[0] < total // 4:
                    await asyncio.sleep(0.01)
                await asyncio.to_thread(freeze_postgresql, pause)

            outcomes, retries = await resume_all(lb, states, during=stall, slowest=slowest)
            assert_once(f"stall{pause}-", states, outcomes, reruns_allowed=len(references))
            assert any("the approval store" in r and "try again" in r for r in retries), \
                sorted(set(retries))[:5]
            # Every answer came within the store's bounds (5 s a statement, 30 s of
            # retries for the end of a run), never the balancer's 60 s.
            assert slowest[0] < 45, f"a caller waited {slowest[0]:.1f} s"
            print(f"  PostgreSQL frozen {pause} s: {len(retries)} retryable answers, the slowest answer "
                  f"took {slowest[0]:.1f} s", flush=True)

    async def a_replica_with_a_rotated_key_resumes_what_the_previous_key_signed():
        states = await ask_all(lb, [f"rotate-{i}" for i in range(4)], clients=2)
        # The new key alone: what the old key signed is refused, nothing runs.
        r3.stop()
        r3.start(key=ROTATED_KEY)
        async with client(r3.url) as mcp:
            await mcp.list_tools()
            refused = await mcp.call_tool(
                "create_transfers", arguments("rotate-0"),
                input_responses={"approval": types.ElicitResult(action="accept")},
                request_state=states["rotate-0"],
            )
            assert refused.is_error and "signature does not match" in text(refused), text(refused)
        # The new key signs, the previous one still verifies.
        r3.stop()
        r3.start(key=ROTATED_KEY, previous=KEY)
        async with client(r3.url) as mcp:
            await mcp.list_tools()
            for reference, state in states.items():
                assert await present(mcp, reference, state) == "ran", reference
                assert await present(mcp, reference, state) == "used", reference
        assert_once("rotate-", states, {reference: ["ran"] for reference in states})
        assert psql("SELECT count(*) FROM mcp_server_transfers WHERE reference LIKE 'rotate-%' AND replica = 'r3'") == "4"

    async def a_frozen_replica_leaves_the_rotation_within_seconds_and_returns_thawed():
        bound = 5.0  # no request through the balancer may take longer

        async def probe(http):
            """(sent, took, outcome): outcome is the replica that answered, or
            `cut` when the balancer ended the request of a replica marked down."""
            sent = time.monotonic()
            try:
                answer = await http.get(f"{lb}/livez")
                outcome = answer.headers.get("x-served-by", "?") if answer.status_code == 200 \
                    else f"status {answer.status_code}"
            except httpx2.TimeoutException:
                outcome = "hung"
            except httpx2.TransportError:
                outcome = "cut"
            return sent, time.monotonic() - sent, outcome

        async def round_of(http, count):
            return await asyncio.gather(*(probe(http) for _ in range(count)))

        async with http_client(timeout=bound) as http:
            before = {outcome for _, _, outcome in await round_of(http, 12)}
            assert before == {"r1", "r2", "r3"}, before
            r2.freeze()
            frozen_at = time.monotonic()
            seen = []
            try:
                while time.monotonic() - frozen_at < 8:
                    seen.extend(await round_of(http, 3))
                    await asyncio.sleep(0.1)
            finally:
                r2.thaw()
            thawed_at = time.monotonic()
            slowest = max(took for _, took, _ in seen)
            assert slowest < bound and "hung" not in {o for _, _, o in seen}, \
                f"a request took {slowest:.1f} s: {sorted(set(o for _, _, o in seen))}"
            # Four seconds after the freeze r2 is out: every request is answered by
            # another replica.
            late = [outcome for sent, _, outcome in seen if sent - frozen_at > 4]
            assert late and set(late) <= {"r1", "r3"}, sorted(set(late))
            # Before that, a request sent to r2 was cut when r2 was marked down.
            early = [outcome for sent, _, outcome in seen if sent - frozen_at <= 4]
            assert set(early) <= {"r1", "r3", "cut"}, sorted(set(early))
            # Thawed, r2 answers its checks again and is back within seconds.
            back = None
            while back is None and time.monotonic() - thawed_at < 10:
                if "r2" in {outcome for _, _, outcome in await round_of(http, 6)}:
                    back = time.monotonic() - thawed_at
                await asyncio.sleep(0.2)
            assert back is not None, "r2 did not come back within 10 s of thawing"
        print(f"  SIGSTOP: the slowest request took {slowest:.1f} s "
              f"({sum(o == 'cut' for _, _, o in seen)} cut when r2 left); r2 back {back:.1f} s "
              f"after SIGCONT", flush=True)

    async def a_principals_quota_holds_across_the_fleet_through_reconnects_and_a_kill():
        # 32 callers as the two principals whose views hold `create_notes` (the
        # static tokens name a client kind, and the kind is the principal; the
        # `external` view has no ledger tool), all hammering it through the
        # balancer; the copilot's
        # callers open a new MCP session (a new connection) for every call, and r2
        # is killed with SIGKILL while the quotas are still being spent. Every caller's call is
        # `ok` (a row), `refused` (the quota's answer) or `cut` (the kill, a 502:
        # it may or may not have been admitted and written).
        callers = {"internal": 16, "copilot": 16}
        calls_each = 6
        seen = {kind: {"ok": [], "refused": [], "cut": []} for kind in callers}
        refusal = f"`create_notes` may be called {NOTE_QUOTA} times an hour by each caller; try again in "
        done, total = [0], sum(callers.values()) * calls_each
        killed = []

        async def call(mcp, reference):
            try:
                result = await mcp.call_tool("create_notes", {"reference": reference})
            except Exception:  # noqa: BLE001 - a cut connection, a 502
                return "cut", None
            if not result.is_error:
                assert result.structured_content == {"recorded": reference}, result
                return "ok", None
            meta = result.meta or {}
            if text(result).startswith(refusal):
                assert isinstance(meta.get("retryAfterMs"), int) and meta["retryAfterMs"] > 0, meta
                return "refused", None
            # The ledger cut by the kill (its pool's replica gone mid-call).
            assert "try again" in text(result), f"{reference}: {text(result)}"
            return "cut", text(result)

        async def caller(kind, index):
            references = [f"quota-{kind}-{index}-{n}" for n in range(calls_each)]
            reconnects = kind == "copilot"
            in_flight = []
            while references:
                try:
                    async with client(lb, kind=kind) as mcp:
                        while references:
                            in_flight.append(references.pop(0))
                            outcome, _ = await call(mcp, in_flight[0])
                            seen[kind][outcome].append(in_flight.pop())
                            done[0] += 1
                            if reconnects or outcome == "cut":
                                break
                except Exception as error:  # noqa: BLE001 - the session itself was cut
                    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
                        error = error.exceptions[0]
                    if isinstance(error, AssertionError):
                        raise error from None
                    # A call the session's end cut short: sent, its answer lost.
                    if in_flight:
                        seen[kind]["cut"].append(in_flight.pop())
                        done[0] += 1
                    assert time.monotonic() - started < DEADLINE, f"{kind} still failing: {error}"
                    await asyncio.sleep(RETRY_PAUSE)

        async def kill_r2():
            # While both principals still spend their quotas (2 x NOTE_QUOTA).
            while done[0] < NOTE_QUOTA // 2:
                await asyncio.sleep(0.01)
            r2.kill()
            killed.append(done[0])

        started = time.monotonic()
        try:
            await asyncio.gather(
                kill_r2(), *(caller(kind, i) for kind, count in callers.items() for i in range(count)))
        finally:
            if r2.process.poll() is not None:
                r2.start()
        window = time.monotonic() - started
        rows = {}
        for line in psql("SELECT reference, count(*) FROM mcp_server_notes "
                         "WHERE reference LIKE 'quota-%' GROUP BY reference").splitlines():
            reference, count = line.split("|")
            rows[reference] = int(count)
        summary = []
        for kind, outcomes in seen.items():
            ok, refused, cut = outcomes["ok"], outcomes["refused"], outcomes["cut"]
            assert len(ok) + len(refused) + len(cut) == callers[kind] * calls_each, (kind, outcomes)
            written = sum(count for reference, count in rows.items() if reference.startswith(f"quota-{kind}-"))
            # Admitted: at most the burst, whatever the replica, session or kill.
            assert written <= NOTE_QUOTA, f"{kind}: {written} rows, the quota is {NOTE_QUOTA}"
            assert all(rows.get(reference) == 1 for reference in ok), (kind, ok)
            # A refused call ran nothing.
            assert not any(reference in rows for reference in refused), (kind, refused)
            # The quota bit, and only once it was spent: the first refusal came
            # after NOTE_QUOTA admissions, each of which ended `ok` or `cut`.
            assert refused, f"{kind}: nothing was refused"
            assert len(ok) + len(cut) >= NOTE_QUOTA, (kind, len(ok), len(cut))
            summary.append(f"{kind} {len(ok)} ok/{len(refused)} refused/{len(cut)} cut, {written} rows")
        assert killed, "r2 was never killed"
        served = psql("SELECT string_agg(DISTINCT replica, ',' ORDER BY replica) FROM mcp_server_notes "
                      "WHERE reference LIKE 'quota-%'")
        print(f"  quota {NOTE_QUOTA}/h, {total} calls by 32 callers in {window:.1f} s, r2 killed after "
              f"{killed[0]}: {'; '.join(summary)}; rows written on {served}", flush=True)

    async def pending_in_inbox(base, references):
        """The inbox's pending approvals of `references` (their JSON), and its CSRF token."""
        async with http_client(headers={"Authorization": f"Bearer {INBOX_TOKEN}"}, timeout=30) as http:
            listed = (await http.get(f"{base}/approvals/api/pending")).json()
        found = {item["pending"]["arguments"].get("reference"): item["pending"] for item in listed["pending"]}
        assert set(references) <= set(found), f"not in the inbox: {set(references) - set(found)}"
        return {reference: found[reference] for reference in references}, listed["csrf_token"]

    async def inbox_decision(base, pending):
        """The inbox JSON API's record of one call: (verdict, decided_by, run)."""
        async with http_client(headers={"Authorization": f"Bearer {INBOX_TOKEN}"}, timeout=30) as http:
            one = {"principal": pending["principal"], "call_id": pending["call_id"]}
            audit = (await http.get(f"{base}/approvals/api/decisions", params=one)).json()
        assert [d["call_id"] for d in audit["decisions"]] == [pending["call_id"]], audit
        decision = audit["decisions"][0]
        return decision["verdict"], decision["decided_by"], decision["run"]

    def age_decisions(like):
        """Decisions on the calls whose arguments match `like` made two minutes
        older: past the replicas' runner grace (60 s), so a runner would run them."""
        psql(
            "UPDATE toolkit_approval_decisions SET decided_at = decided_at - 120 WHERE call_id IN "
            f"(SELECT call_id FROM toolkit_pending_approvals WHERE arguments LIKE '{like}')"
        )

    async def operator_approves(http, csrf, pendings, reference):
        """The operator's "yes" in r1's inbox: (reference, status, body)."""
        answer = await http.post(
            f"{r1.url}/approvals/api/decide", headers={"x-csrf-token": csrf},
            json={"pending": pendings[reference], "decision": "approve"},
        )
        return reference, answer.status_code, answer.json()

    def who_was_first(approvals):
        """{reference: "requester" | "operator"}: whose verdict the store kept,
        read from the operator's answers (a 409 names the requester's "no")."""
        first = {}
        for reference, status, body in approvals:
            if status == 409:
                assert body["error"]["kind"] == "already_decided", body
                assert body["error"]["message"].startswith(
                    "another approver was first: the requester decided it (denied) at "), body
                first[reference] = "requester"
            else:
                assert status == 200 and body["approval"]["verdict"] == "approved", (status, body)
                first[reference] = "operator"
        return first

    async def every_inbox_reports_the_no(pending, first, declined, reference):
        """Every replica's inbox JSON reports the requester's "no": as the verdict
        when it came first, as the approved run's outcome when the operator's
        "yes" did."""
        for replica in (r1, r2, r3):
            door = await inbox_decision(replica.url, pending)
            if first == "requester":
                assert door == ("denied", "the requester", None), (reference, replica.name, door)
            else:
                verdict, decided_by, run = door
                assert (verdict, decided_by) == ("approved", "local|operator"), (reference, door)
                assert run["done"] and run["outcome"] == {
                    "status": "failed", "kind": "denied", "message": declined}, (reference, door)

    async def the_operators_yes_and_the_requesters_no_at_once_on_two_replicas_run_nothing():
        # The operator approves in r1's inbox and the requester declines on r2:
        # the requester first, the operator first, and eight calls both at once.
        # Whichever the store records first, nothing runs (not even by a runner,
        # past its grace), and every door reports the requester's "no": its retry
        # on r3, the inbox JSON on every replica, the ledger.
        declined = "a human denied this call: the user declined the call"
        at_once = [f"race-{i}" for i in range(8)]
        references = ["race-declined-first", "race-approved-first", *at_once]
        async with client(lb) as mcp:
            await mcp.list_tools()
            states = {reference: await ask(mcp, reference) for reference in references}
        pendings, csrf = await pending_in_inbox(r1.url, references)
        async with http_client(headers={"Authorization": f"Bearer {INBOX_TOKEN}"}, timeout=30) as http, \
                client(r2.url) as requester:
            await requester.list_tools()

            async def approve(reference):
                return await operator_approves(http, csrf, pendings, reference)

            async def decline(reference):
                result = await requester.call_tool(
                    "create_transfers", arguments(reference),
                    input_responses={"approval": types.ElicitResult(action="decline")},
                    request_state=states[reference],
                )
                assert (result.is_error, text(result)) == (True, declined), (reference, result)

            await decline("race-declined-first")
            approvals = [await approve("race-declined-first"), await approve("race-approved-first")]
            await decline("race-approved-first")
            answers = await asyncio.gather(*(call(reference) for reference in at_once
                                             for call in (approve, decline)))
            approvals.extend(answer for answer in answers if answer is not None)
        first = who_was_first(approvals)
        assert (first["race-declined-first"], first["race-approved-first"]) == ("requester", "operator"), first
        # Past the runners' grace, and two passes of every replica's runner.
        age_decisions('%"race-%')
        await asyncio.sleep(4)
        async with client(r3.url) as mcp:
            await mcp.list_tools()
            for reference in references:
                retried = await mcp.call_tool(
                    "create_transfers", arguments(reference),
                    input_responses={"approval": types.ElicitResult(action="accept")},
                    request_state=states[reference],
                )
                said = (retried.is_error, text(retried))
                if first[reference] == "requester":
                    assert said == (True, declined), (reference, said)
                else:
                    assert said == (True, f"the approval was refused: it ended without running: {declined}; "
                                          "an approved call runs once; nothing ran"), (reference, said)
                await every_inbox_reports_the_no(pendings[reference], first[reference], declined, reference)
        assert psql("SELECT count(*) FROM mcp_server_transfers WHERE reference LIKE 'race-%'") == "0"
        print(f"  at once: the requester's no recorded first {sum(first[r] == 'requester' for r in at_once)} "
              f"times, the operator's yes {sum(first[r] == 'operator' for r in at_once)} times; nothing ran",
              flush=True)

    async def a_tasks_withdrawal_and_the_operators_yes_at_once_run_nothing():
        # With MCP Tasks (rmcp's client) the requester's "no" is tasks/cancel: it
        # cancels on r2 while the operator approves in r1's inbox, four tasks at
        # once. Nothing runs, not even by a runner past its grace, and tasks/get on
        # every replica reports the withdrawal.
        tasks = {}
        for i in range(4):
            created = await asyncio.to_thread(
                task_client, lb, "call", "create_transfers", json.dumps(arguments(f"race-task-{i}")))
            assert created["status"] == "input_required", created
            tasks[f"race-task-{i}"] = created["taskId"]
        pendings, csrf = await pending_in_inbox(r1.url, list(tasks))
        async with http_client(headers={"Authorization": f"Bearer {INBOX_TOKEN}"}, timeout=30) as http:
            async def approve(reference):
                _, status, body = await operator_approves(http, csrf, pendings, reference)
                return status, body

            async def cancel(reference):
                return await asyncio.to_thread(task_client, r2.url, "cancel", tasks[reference])

            answers = await asyncio.gather(*(call(reference) for reference in tasks for call in (approve, cancel)))
        for status, body in answers[0::2]:
            assert status == 200 or (status == 409 and body["error"]["kind"] == "already_decided"), (status, body)
        age_decisions('%"race-task-%')
        await asyncio.sleep(4)  # two passes of every replica's runner
        for reference, task_id in tasks.items():
            for replica in (r1, r2, r3):
                got = await asyncio.to_thread(task_client, replica.url, "get", task_id)
                assert (got["status"], got["statusMessage"]) == (
                    "cancelled", "`create_transfers` was withdrawn before it ran"), (reference, replica.name, got)
        assert psql("SELECT count(*) FROM mcp_server_transfers WHERE reference LIKE 'race-task-%'") == "0"
        print(f"  tasks: the operator's yes recorded first {sum(s == 200 for s, _ in answers[0::2])} of 4 times; "
              "nothing ran", flush=True)

    async def a_call_a_runner_ran_is_reported_as_ran_to_a_late_requester():
        # Asked on r1, approved in r2's inbox, nobody comes back: a runner runs it.
        # The requester comes back late, on r3 saying yes and on r1 saying no: both
        # are told it ran, with its result; the inbox JSON of every replica says so.
        async with client(r1.url) as mcp:
            await mcp.list_tools()
            state = await ask(mcp, "late-1")
        pendings, _ = await pending_in_inbox(r2.url, ["late-1"])
        await approve_in_inbox(r2.url, ["late-1"])
        age_decisions('%"late-1"%')
        started = time.monotonic()
        while psql("SELECT count(*) FROM mcp_server_transfers WHERE reference = 'late-1'") != "1":
            assert time.monotonic() - started < 20, "no replica's runner ran it"
            await asyncio.sleep(0.2)
        result = {"transferred": 100 + len("late-1"), "reference": "late-1"}
        for replica in (r1, r2, r3):
            verdict, decided_by, run = await inbox_decision(replica.url, pendings["late-1"])
            assert (verdict, decided_by, run["done"]) == ("approved", "local|operator", True), run
            assert (run["outcome"]["status"], run["outcome"]["result"]) == ("ran", result), run
        prefix, suffix = "this approved call already ran, with the result ", \
            "; an approved call runs once, so it did not run again"
        for replica, action in ((r3, "accept"), (r1, "decline")):
            async with client(replica.url) as mcp:
                await mcp.list_tools()
                late = await mcp.call_tool(
                    "create_transfers", arguments("late-1"),
                    input_responses={"approval": types.ElicitResult(action=action)},
                    request_state=state,
                )
            said = text(late)
            assert late.is_error and said.startswith(prefix) and said.endswith(suffix), (action, said)
            # The result's JSON, compared as JSON (its key order follows `preserve_order`).
            assert json.loads(said[len(prefix):-len(suffix)]) == result, (action, said)
            assert late.meta["toolkit/error"]["kind"] == "already_ran", (action, late.meta)
        assert psql("SELECT count(*), sum(attempts) FROM mcp_server_transfers WHERE reference = 'late-1'") == "1|1"


    async def the_requesters_tasks_decline_and_the_operators_yes_at_once_run_nothing():
        # With MCP Tasks the requester's "no" may also be its answer to the task's
        # input request (`tasks/update`, `approval: decline`): on r2, while the
        # operator approves in r1's inbox; the requester first, the operator
        # first, and six tasks both at once. Nothing runs, not even by a runner
        # past its grace, and every door reports the one verdict: `tasks/get` on
        # every replica, the inbox JSON of every replica, the ledger.
        declined = "a human denied this call: the user declined the call"
        at_once = [f"decline-task-{i}" for i in range(6)]
        references = ["decline-task-declined-first", "decline-task-approved-first", *at_once]
        tasks = {}
        for reference in references:
            created = await asyncio.to_thread(
                task_client, r1.url, "call", "create_transfers", json.dumps(arguments(reference)))
            assert created["status"] == "input_required", created
            tasks[reference] = created["taskId"]
        pendings, csrf = await pending_in_inbox(r1.url, references)
        async with http_client(headers={"Authorization": f"Bearer {INBOX_TOKEN}"}, timeout=30) as http:
            async def approve(reference):
                return await operator_approves(http, csrf, pendings, reference)

            async def decline(reference):
                answered = await asyncio.to_thread(task_client, r2.url, "update", tasks[reference], "decline")
                assert answered == {}, (reference, answered)

            async def approve_after(reference, pause):
                # The decline spawns a client that connects first: the operator's
                # POST waits a little, a different while for each task, so that
                # either lands first.
                await asyncio.sleep(pause)
                return await approve(reference)

            await decline("decline-task-declined-first")
            approvals = [await approve("decline-task-declined-first"), await approve("decline-task-approved-first")]
            await decline("decline-task-approved-first")
            pauses = [0.3 * i / (len(at_once) - 1) for i in range(len(at_once))]
            answers = await asyncio.gather(*(call for reference, pause in zip(at_once, pauses)
                                             for call in (approve_after(reference, pause), decline(reference))))
            approvals.extend(answer for answer in answers if answer is not None)
        first = who_was_first(approvals)
        assert (first["decline-task-declined-first"], first["decline-task-approved-first"]) == \
            ("requester", "operator"), first
        age_decisions('%"decline-task-%')
        await asyncio.sleep(4)  # two passes of every replica's runner
        for reference, task_id in tasks.items():
            for replica in (r1, r2, r3):
                got = await asyncio.to_thread(task_client, replica.url, "get", task_id)
                assert (got["status"], got.get("statusMessage")) == ("failed", declined), \
                    (reference, first[reference], replica.name, got)
            await every_inbox_reports_the_no(pendings[reference], first[reference], declined, reference)
        assert psql("SELECT count(*) FROM mcp_server_transfers WHERE reference LIKE 'decline-task-%'") == "0"
        print(f"  tasks/update decline: the requester's no recorded first "
              f"{sum(first[r] == 'requester' for r in at_once)} of {len(at_once)} times at once; nothing ran",
              flush=True)

    async def start_reports(prefix, count, seconds, started_elsewhere=0):
        """`count` tasks of `create_reports` created through the balancer (each on
        the replica HAProxy picks, which runs it); {reference: task id} once every
        run has started (its row is written), and `started_elsewhere` more."""
        async def create(reference):
            created = await asyncio.to_thread(
                task_client, lb, "call", "create_reports", json.dumps({"reference": reference, "seconds": seconds}))
            assert (created["resultType"], created["status"]) == ("task", "working"), created
            return reference, created["taskId"]

        tasks = dict(await asyncio.gather(*(create(f"{prefix}{i}") for i in range(count))))
        await reports_started(prefix, count + started_elsewhere)
        return tasks

    async def reports_started(prefix, count):
        """Waits until `count` reports under `prefix` started (their rows written)."""
        started = time.monotonic()
        while len(reports(prefix)) < count:
            assert time.monotonic() - started < 20, f"{len(reports(prefix))} of {count} reports started"
            await asyncio.sleep(0.1)

    async def fifty_ten_second_tasks_complete_once_each_through_a_kill():
        # 50 tasks of the 10 s `create_reports` through the balancer, run by the
        # three replicas; r2 is killed with SIGKILL mid-run. Polled through the
        # balancer, every task reaches `completed` (never another end), with one
        # result on every replica and one ledger row; the runs r2 held are taken
        # over after their lease by the replica a poll reached (attempt 2).
        # Five of them asked by the official TypeScript client with ext-tasks, on
        # r2 itself, then followed (polled by ext-tasks) through the balancer.
        typescript = {}
        for i in range(5):
            reference = f"report-ts-{i}"
            typescript[reference] = await asyncio.create_subprocess_exec(
                NODE, TS_TASK_CLIENT, f"{r2.url}/mcp/internal", f"{lb}/mcp/internal", TOKEN,
                "create_reports", json.dumps({"reference": reference, "seconds": REPORT_SECONDS}),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )
        try:
            return await fifty_tasks(typescript)
        finally:
            for process in typescript.values():
                if process.returncode is None:
                    process.kill()
                    await process.wait()

    async def fifty_tasks(typescript):
        ts_tasks = {}
        for reference, process in typescript.items():
            line = await asyncio.wait_for(process.stdout.readline(), 30)
            assert line, f"task_client.mjs: {(await process.stderr.read()).decode().strip()}"
            created = json.loads(line)
            assert (created["event"], created["status"]) == ("created", "working"), created
            ts_tasks[reference] = created["taskId"]
        tasks = await start_reports("report-", 50 - len(ts_tasks), REPORT_SECONDS, started_elsewhere=len(ts_tasks))
        tasks.update(ts_tasks)
        on_r2 = {reference for reference, row in reports("report-").items() if row[0] == "r2"}
        assert set(ts_tasks) <= on_r2, "the TypeScript client's reports did not run on r2"
        r2.kill()
        killed = time.monotonic()
        seen = {reference: [] for reference in tasks}
        outcomes, cut = {}, [0]

        async def poll(reference):
            while True:
                got, error = await asyncio.to_thread(task_request, f"{lb}/mcp/internal", TOKEN, "get", tasks[reference])
                if error is not None:
                    # r2's requests before HAProxy marked it down: cut, retried.
                    cut[0] += 1
                else:
                    if not seen[reference] or seen[reference][-1] != got["status"]:
                        seen[reference].append(got["status"])
                    if got["status"] != "working":
                        outcomes[reference] = got
                        return
                assert time.monotonic() - killed < 90, f"{reference} still {seen[reference]}: {error}"
                await asyncio.sleep(1)

        await asyncio.gather(*(poll(reference) for reference in tasks))
        took = time.monotonic() - killed
        r2.start()
        for reference, got in outcomes.items():
            assert seen[reference] in (["working", "completed"], ["completed"]), (reference, seen[reference], got)
            assert got["result"]["isError"] is False, got
            assert got["result"]["structuredContent"] == {"filed": reference, "seconds": REPORT_SECONDS}, got
        rows = reports("report-")
        assert sorted(rows) == sorted(tasks), f"{len(rows)} rows for {len(tasks)} tasks"
        assert all(row[5] is not None and row[4] is None for row in rows.values()), "a report was not filed"
        taken_over = {reference for reference, row in rows.items() if row[2] > 1}
        # Exactly r2's runs ran twice, each taken over once, elsewhere.
        assert taken_over == on_r2, (sorted(on_r2), sorted(taken_over))
        assert all(rows[reference][0] != "r2" and rows[reference][1:3] == (2, 2) for reference in on_r2), \
            {reference: rows[reference] for reference in on_r2}
        # The same one outcome on every replica (r2 back), for the taken-over
        # tasks and a few others.
        for reference in sorted(on_r2) + sorted(set(tasks) - on_r2)[:3]:
            for replica in (r1, r2, r3):
                again = await asyncio.to_thread(task_client, replica.url, "get", tasks[reference])
                assert (again["status"], again["result"]) == ("completed", outcomes[reference]["result"]), \
                    (reference, replica.name, again)
        # The TypeScript client followed its tasks through the kill to the same outcome.
        for reference, process in typescript.items():
            out, err = await asyncio.wait_for(process.communicate(), 60)
            assert process.returncode == 0, err.decode().strip()
            lines = [json.loads(line) for line in out.decode().splitlines()]
            statuses = [line["status"] for line in lines if line["event"] == "task"]
            assert statuses and set(statuses) <= {"working", "completed"} and statuses[-1] == "completed", lines
            outcome = lines[-1]
            assert (outcome["event"], outcome["status"]) == ("outcome", "completed"), outcome
            assert outcome["result"]["structuredContent"] == outcomes[reference]["result"]["structuredContent"], \
                (outcome, outcomes[reference])
        print(f"  50 tasks of {REPORT_SECONDS} s: {len(on_r2)} ran on r2 when it was killed, each taken over "
              f"(attempt 2) on {','.join(sorted({rows[r][0] for r in on_r2}))}; every task completed once, "
              f"the last {took:.1f} s after the kill (lease {LEASE_SECONDS} s); {cut[0]} polls cut; the TypeScript "
              f"client followed its {len(typescript)} (asked on r2) to completed", flush=True)

    async def a_tasks_cancel_through_the_balancer_stops_its_run_on_any_replica():
        # Six tasks of a 120 s report through the balancer (on each replica);
        # `tasks/cancel` of each through the balancer, wherever it lands, stops
        # the run on the replica holding it: the tool's future is dropped where
        # it waits, and the ledger row says when (the database's clock).
        tasks = await start_reports("cancel-", 6, 120)
        ran_on = {row[0] for row in reports("cancel-").values()}
        sent = {}
        for reference, task_id in tasks.items():
            sent[reference] = time.time()
            answered = await asyncio.to_thread(task_client, lb, "cancel", task_id)
            assert answered == {}, answered
        started = time.monotonic()
        while any(row[4] is None for row in reports("cancel-").values()):
            assert time.monotonic() - started < 30, reports("cancel-")
            await asyncio.sleep(0.1)
        rows = reports("cancel-")
        took = {reference: rows[reference][4] - sent[reference] for reference in tasks}
        assert all(row[5] is None and row[2] == 1 for row in rows.values()), rows
        for reference, task_id in tasks.items():
            for replica in (r1, r2, r3):
                got = await asyncio.to_thread(task_client, replica.url, "get", task_id)
                assert got["status"] == "cancelled", (reference, replica.name, got)
        slowest = max(took.values())
        assert slowest < CANCEL_BOUND, f"a run stopped {slowest:.2f} s after its cancel: {took}"
        print(f"  cancel through the balancer: runs on {','.join(sorted(ran_on))} stopped "
              f"{percentile(list(took.values()), 0.5):.2f} s (median), {slowest:.2f} s (slowest) after "
              f"tasks/cancel was sent (bound {CANCEL_BOUND} s: a read every second + a round trip)", flush=True)

    async def poll_task(task_id, until, timeout=20):
        """tasks/get through the balancer (each poll on the next replica) until
        the task is `until`; the statuses seen, in order, without repeats."""
        seen, started = [], time.monotonic()
        while True:
            got = await asyncio.to_thread(task_client, lb, "get", task_id)
            if not seen or seen[-1] != got["status"]:
                seen.append(got["status"])
            if got["status"] == until:
                return got, seen
            assert not got["status"] in ("completed", "failed", "cancelled"), (seen, got)
            assert time.monotonic() - started < timeout, f"{task_id} still {seen}"
            await asyncio.sleep(0.05)

    async def a_task_is_polled_from_input_required_to_completed_across_replicas():
        # rmcp's client declares the tasks extension: asked on r1, the transfer
        # is a task waiting for the operator on every replica; the client's own
        # "yes" (on r3) decides nothing; the operator approves in r2's inbox; the
        # next poll, on whichever replica the balancer picks, runs it, once.
        created = await asyncio.to_thread(
            task_client, r1.url, "call", "create_transfers", json.dumps(arguments("task-1")))
        assert (created["resultType"], created["status"]) == ("task", "input_required"), created
        assert created["ttlMs"] == (24 * 60 + 15) * 60 * 1000 and created["pollIntervalMs"] == 5000, created
        task_id = created["taskId"]
        for replica in (r1, r2, r3):
            got = await asyncio.to_thread(task_client, replica.url, "get", task_id)
            assert (got["status"], got["inputRequests"]) == ("input_required", {}), (replica.name, got)
        await asyncio.to_thread(task_client, r3.url, "update", task_id, "accept")
        await asyncio.sleep(0.5)
        got = await asyncio.to_thread(task_client, r1.url, "get", task_id)
        assert got["status"] == "input_required", got
        await approve_in_inbox(r2.url, ["task-1"])
        approved = time.monotonic()
        done, seen = await poll_task(task_id, "completed")
        took = time.monotonic() - approved
        assert seen[0] in ("input_required", "working") and seen[-1] == "completed", seen
        assert done["result"]["structuredContent"] == {"transferred": 106, "reference": "task-1"}, done
        assert done["result"]["isError"] is False, done
        for replica in (r1, r2, r3):
            again = await asyncio.to_thread(task_client, replica.url, "get", task_id)
            assert again["result"] == done["result"], (replica.name, again)
        assert psql("SELECT count(*), sum(attempts) FROM mcp_server_transfers WHERE reference = 'task-1'") == "1|1"
        ran_on = psql("SELECT replica FROM mcp_server_transfers WHERE reference = 'task-1'")
        # Cancelled while it waits: the operator's later "yes" runs nothing.
        cancelled = await asyncio.to_thread(
            task_client, r2.url, "call", "create_transfers", json.dumps(arguments("task-2")))
        await asyncio.to_thread(task_client, r3.url, "cancel", cancelled["taskId"])
        gone, _ = await poll_task(cancelled["taskId"], "cancelled")
        assert gone["statusMessage"] == "`create_transfers` was withdrawn before it ran", gone
        assert psql("SELECT count(*) FROM mcp_server_transfers WHERE reference = 'task-2'") == "0"
        print(f"  task: {' -> '.join(['input_required'] + seen)}, completed {took:.2f} s after the "
              f"inbox approval; ran on {ran_on}", flush=True)
        if BENCH:
            # From the inbox's answer to the decision until a poll (every 50 ms,
            # through the balancer) reads the task completed: the poll that finds
            # it approved runs it.
            took = []
            for i in range(100):
                reference = f"task-bench-{i}"
                created = await asyncio.to_thread(
                    task_client, lb, "call", "create_transfers", json.dumps(arguments(reference)))
                await approve_in_inbox(lb, [reference])
                approved = time.monotonic()
                await poll_task(created["taskId"], "completed")
                took.append(time.monotonic() - approved)
            print(f"bench: inbox approval to a task's outcome (100 tasks, polled every 50 ms): "
                  f"median {percentile(took, 0.5) * 1000:.0f} ms, p99 {percentile(took, 0.99) * 1000:.0f} ms",
                  flush=True)

    async def the_official_typescript_client_polls_a_task_to_completed_across_replicas():
        # @modelcontextprotocol/client pinned to 2026-07-28, with
        # @modelcontextprotocol/ext-tasks: it asks on r1 and gets a task waiting for
        # the operator; it hands the task off and resumes it from ext-tasks' task
        # reference on the balancer, where ext-tasks polls it (each poll on the next
        # replica) while the operator approves it in r2's inbox; the poll that finds
        # it approved runs it, once.
        process = await asyncio.create_subprocess_exec(
            NODE, TS_TASK_CLIENT, f"{r1.url}/mcp/internal", f"{lb}/mcp/internal", TOKEN,
            "create_transfers", json.dumps(arguments("ts-task-1")),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        try:
            line = await asyncio.wait_for(process.stdout.readline(), 30)
            assert line, f"task_client.mjs: {(await process.stderr.read()).decode().strip()}"
            created = json.loads(line)
            assert created == {
                "event": "created", "taskId": created["taskId"], "status": "input_required",
                "statusMessage": "`create_transfers` waits for an approver's decision; it has not "
                                 "run, and runs once they approve it",
                "ttlMs": (24 * 60 + 15) * 60 * 1000, "pollIntervalMs": 5000, "inputRequests": {},
            }, created
            task_id = created["taskId"]
            # The same task, as rmcp's client reads it on every replica.
            for replica in (r1, r2, r3):
                got = await asyncio.to_thread(task_client, replica.url, "get", task_id)
                assert got["status"] == "input_required", (replica.name, got)
            await approve_in_inbox(r2.url, ["ts-task-1"])
            approved = time.monotonic()
            out, err = await asyncio.wait_for(process.communicate(), 60)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        took = time.monotonic() - approved
        assert process.returncode == 0, err.decode().strip()
        lines = [json.loads(line) for line in out.decode().splitlines()]
        seen = [line["status"] for line in lines if line["event"] == "task"]
        assert seen and seen[0] == "input_required" and seen[-1] == "completed", lines
        assert set(seen) <= {"input_required", "working", "completed"}, seen
        served = next(line["by"] for line in lines if line["event"] == "served")
        assert len(set(served)) >= 2 and set(served) <= {"r1", "r2", "r3"}, served
        # The text block is the structured result's JSON, compared as JSON: its key
        # order follows serde_json's `preserve_order`, which a workspace build may
        # turn on through another crate's features.
        outcome = json.loads(json.dumps(lines[-1]))
        for block in outcome.get("result", {}).get("content", []):
            if block.get("type") == "text":
                block["text"] = json.loads(block["text"])
        assert outcome == {"event": "outcome", "status": "completed", "result": {
            "resultType": "complete",
            "content": [{"type": "text", "text": {"reference": "ts-task-1", "transferred": 109}}],
            "structuredContent": {"reference": "ts-task-1", "transferred": 109},
            "isError": False,
        }}, lines[-1]
        assert psql("SELECT count(*), sum(attempts) FROM mcp_server_transfers WHERE reference = 'ts-task-1'") == "1|1"
        ran_on = psql("SELECT replica FROM mcp_server_transfers WHERE reference = 'ts-task-1'")
        print(f"  TypeScript task: {' -> '.join(seen)}, completed {took:.2f} s after the inbox "
              f"approval (ext-tasks polls as the server asks: every 5 s while it waits); polled on "
              f"{', '.join(served)}; ran on {ran_on}", flush=True)

    for body in [
        a_task_is_polled_from_input_required_to_completed_across_replicas,
        the_official_typescript_client_polls_a_task_to_completed_across_replicas,
        a_frozen_replica_leaves_the_rotation_within_seconds_and_returns_thawed,
        asked_on_one_decided_on_another_resumed_on_a_third,
        two_hundred_approvals_three_times_each_by_eight_clients_run_once,
        a_replica_killed_mid_run_loses_nothing_and_runs_nothing_twice,
        a_postgresql_restart_mid_run_loses_nothing_and_runs_nothing_twice,
        the_requester_cannot_approve_its_own_transfer,
        a_call_approved_for_a_client_that_cannot_elicit_runs_on_the_fleet,
        a_replica_frozen_past_its_lease_is_fenced_and_reports_no_second_run,
        replicas_two_hours_apart_agree_on_every_approval,
        a_stalled_postgresql_answers_within_seconds_and_loses_nothing,
        # Before the key rotation, which leaves r3 signing with another key.
        a_principals_quota_holds_across_the_fleet_through_reconnects_and_a_kill,
        the_operators_yes_and_the_requesters_no_at_once_on_two_replicas_run_nothing,
        a_tasks_withdrawal_and_the_operators_yes_at_once_run_nothing,
        the_requesters_tasks_decline_and_the_operators_yes_at_once_run_nothing,
        a_call_a_runner_ran_is_reported_as_ran_to_a_late_requester,
        fifty_ten_second_tasks_complete_once_each_through_a_kill,
        a_tasks_cancel_through_the_balancer_stops_its_run_on_any_replica,
        a_replica_with_a_rotated_key_resumes_what_the_previous_key_signed,
    ]:
        if not ONLY or body.__name__ in ONLY:
            await check(body.__name__, body, replicas)
    if BENCH:
        # The whole fleet on one key again (the rotation check left r3 on another).
        r3.stop()
        r3.start()
        await check("bench", lambda: bench(lb, r1.url))



class Issuer:
    """npm `oauth2-mock-server` (scripts/oauth_mock_server.mjs): client-credentials
    tokens whose `sub` is the client id, `aud` the `resource` asked for, and the
    scopes asked for that the mock's policy grants that client."""

    def __init__(self):
        self.process = subprocess.Popen(
            [NODE, OAUTH_MOCK], stdout=subprocess.PIPE,
            stderr=open(os.path.join(PG_DIR, "oauth-mock.log"), "ab"), preexec_fn=dies_with_this_script,
        )
        line = self.process.stdout.readline().decode()
        if not line.startswith("issuer "):
            stop(self.process)
            raise RuntimeError(f"oauth2-mock-server did not start: {line!r}")
        self.url = line.split()[1]

    async def token(self, client_id, scope, resource, unlike=None):
        """A new access token of `client_id` for `resource`; one other than
        `unlike` (the mock signs the same claims in the same second alike)."""
        async with http_client(timeout=30) as http:
            while True:
                answer = await http.post(f"{self.url}/token", data={
                    "grant_type": "client_credentials", "client_id": client_id,
                    "scope": scope, "resource": resource,
                })
                assert answer.status_code == 200, answer.text
                token = answer.json()["access_token"]
                if token != unlike:
                    return token
                await asyncio.sleep(0.2)

    def stop(self):
        stop(self.process)


def oauth_client(base, token):
    """The Python SDK on the OAuth mode's one endpoint, `/mcp`, with `token`."""
    http = http_client(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    transport = streamable_http_client(f"{base}/mcp", http_client=http)
    return Client(transport, mode="2026-07-28", cache=None, elicitation_callback=never_asked)


async def oauth_fleet():
    """The second fleet: OAUTH_REPLICAS replicas in OAuth mode on the same
    PostgreSQL, behind their own HAProxy, every token for the balancer's URL."""
    issuer = Issuer()
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    quotas = f"create_notes={OAUTH_NOTE_QUOTA}/s"
    replicas = [Replica(f"o{i}", quotas=quotas, oauth=(issuer.url, resource)) for i in range(1, OAUTH_REPLICAS + 1)]
    balancer = None
    try:
        for replica in replicas:
            replica.start()
        balancer = Balancer(replicas, name="oauth", port=port)
        await oauth_checks(issuer, resource, replicas, balancer.url)
    finally:
        if balancer:
            balancer.stop()
        for replica in replicas:
            replica.stop()
        issuer.stop()


async def oauth_checks(issuer, resource, replicas, lb):
    o1, o2, o3, o4 = replicas

    async def four_principals_quotas_hold_on_four_oauth_replicas_through_reauthentication_and_a_kill():
        # 32 callers as four users (the mock's client-credentials tokens: the
        # principal is the issuer and the subject), 8 each, hammering the `auto`
        # tool `create_notes` through the balancer for a few seconds, under a quota
        # of OAUTH_NOTE_QUOTA a second each. Ada's callers sign in again (a new
        # token, the same subject) for every session of 5 calls; o2 is killed
        # with SIGKILL mid-run. Each call is `ok` (one row), `refused` (the
        # quota's answer: isError and `_meta.retryAfterMs`, no row) or `cut`.
        users = ["fleet-ada", "fleet-bob", "fleet-cyd", "fleet-dan"]
        reauthenticates = "fleet-ada"
        callers_each, run_for = 8, 6.0
        refusal = f"`create_notes` may be called {OAUTH_NOTE_QUOTA} times a second by each caller; try again in "
        seen = {user: {"ok": [], "refused": [], "cut": []} for user in users}
        tokens = {user: {await issuer.token(user, "mcp internal", resource)} for user in users}
        signins, killed = [0], []

        async def call(mcp, reference):
            try:
                result = await mcp.call_tool("create_notes", {"reference": reference})
            except Exception:  # noqa: BLE001 - a cut connection, a 502
                return "cut"
            if not result.is_error:
                assert result.structured_content == {"recorded": reference}, result
                return "ok"
            said, meta = text(result), result.meta or {}
            if said.startswith(refusal):
                assert isinstance(meta.get("retryAfterMs"), int) and meta["retryAfterMs"] > 0, meta
                return "refused"
            assert "try again" in said, f"{reference}: {said}"
            return "cut"

        async def caller(user, index):
            calls, token = 0, next(iter(tokens[user]))
            while time.monotonic() < end:
                in_flight = None
                if user == reauthenticates:
                    token = await issuer.token(user, "mcp internal", resource, unlike=token)
                    tokens[user].add(token)
                    signins[0] += 1
                try:
                    async with oauth_client(lb, token) as mcp:
                        for _ in range(5 if user == reauthenticates else 1_000_000):
                            if time.monotonic() >= end:
                                break
                            in_flight = f"oquota-{user}-{index}-{calls}"
                            calls += 1
                            outcome = await call(mcp, in_flight)
                            seen[user][outcome].append(in_flight)
                            in_flight = None
                            if outcome == "cut":
                                break
                except Exception as error:  # noqa: BLE001 - the session itself was cut
                    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
                        error = error.exceptions[0]
                    if isinstance(error, AssertionError):
                        raise error from None
                    if in_flight:
                        seen[user]["cut"].append(in_flight)
                    await asyncio.sleep(RETRY_PAUSE)

        async def kill_o2():
            await asyncio.sleep(run_for / 3)
            o2.kill()
            killed.append(time.monotonic() - started)

        started = time.monotonic()
        end = started + run_for
        try:
            await asyncio.gather(kill_o2(), *(caller(user, i) for user in users for i in range(callers_each)))
        finally:
            if o2.process.poll() is not None:
                o2.start()
        window = time.monotonic() - started
        rows = {}
        for line in psql("SELECT reference, count(*) FROM mcp_server_notes "
                         "WHERE reference LIKE 'oquota-%' GROUP BY reference").splitlines():
            reference, count = line.split("|")
            rows[reference] = int(count)
        # GCRA's allowance over the window: the burst, then one call every
        # 1/OAUTH_NOTE_QUOTA s. The window here is wider than the checks' span
        # (taken before the first call was sent and after the last answer).
        allowance = OAUTH_NOTE_QUOTA + math.ceil(window * OAUTH_NOTE_QUOTA)
        summary = []
        for user, outcomes in seen.items():
            ok, refused, cut = outcomes["ok"], outcomes["refused"], outcomes["cut"]
            written = sum(count for reference, count in rows.items() if reference.startswith(f"oquota-{user}-"))
            assert written <= allowance, f"{user}: {written} rows in {window:.1f} s, the quota allows {allowance}"
            assert all(rows.get(reference) == 1 for reference in ok), (user, ok)
            assert not any(reference in rows for reference in refused), (user, refused)
            assert refused, f"{user}: nothing was refused"
            assert len(ok) + len(cut) >= OAUTH_NOTE_QUOTA, (user, len(ok), len(cut))
            summary.append(f"{user.removeprefix('fleet-')} {len(ok)} ok/{len(refused)} refused/{len(cut)} cut, "
                           f"{written} rows ({written / allowance:.2f} of it)")
        # Every session of hers began with a new token (another than her last).
        assert signins[0] > callers_each and len(tokens[reauthenticates]) > 1, "ada never signed in again"
        assert killed, "o2 was never killed"
        served = psql("SELECT string_agg(DISTINCT replica, ',' ORDER BY replica) FROM mcp_server_notes "
                      "WHERE reference LIKE 'oquota-%'")
        print(f"  OAuth fleet, quota {OAUTH_NOTE_QUOTA}/s: {sum(len(v) for o in seen.values() for v in o.values())} "
              f"calls by 32 callers as 4 users in {window:.1f} s (allowance {allowance} each), o2 killed at "
              f"{killed[0]:.1f} s, ada signed in {signins[0]} times ({len(tokens[reauthenticates])} distinct tokens): {'; '.join(summary)}; "
              f"rows written on {served}", flush=True)

    async def a_narrower_token_of_the_same_user_reaches_none_of_its_calls_on_the_fleet():
        # Ada's token with `mcp internal` asks, on o1: a transfer task waiting for
        # an approver, a running report task, and a transfer over elicitation
        # (its request state). Her token with `mcp` alone, on every other replica
        # and through the balancer, lists no tool, reads, answers and withdraws
        # none of them, and records no decision; her full token still finds each
        # as it was.
        full = await issuer.token("fleet-ada", "mcp internal", resource)
        narrow = await issuer.token("fleet-ada", "mcp", resource)

        async def task(url, token, *args):
            return await asyncio.to_thread(task_request, url, token, *args)

        transfer, error = await task(f"{o1.url}/mcp", full, "call", "create_transfers",
                                     json.dumps(arguments("narrow-1")))
        assert error is None and transfer["status"] == "input_required", (transfer, error)
        report, error = await task(f"{o1.url}/mcp", full, "call", "create_reports",
                                   json.dumps({"reference": "narrow-report", "seconds": 120}))
        assert error is None and report["status"] == "working", (report, error)
        async with oauth_client(o1.url, full) as mcp:
            await mcp.list_tools()
            state = await ask(mcp, "narrow-2")
        # A cancel of a task that was never made, for comparison, of each kind of
        # id (an approval's and a run's), with the id as `{id}`: neither is found.
        async def never_made(task_id):
            kind = task_id.split("_")[0]
            never = f"{kind}_{'0' * (len(task_id) - len(kind) - 1)}"
            answer, error = await task(f"{lb}/mcp", narrow, "cancel", never)
            return answer, error and error.replace(never, "{id}")

        assert await never_made(transfer["taskId"]) == (None, "Mcp error: -32602: no task `{id}` here")
        assert await never_made(report["taskId"]) == (None, "Mcp error: -32602: no task `{id}` here")
        tried = 0
        for base in (o2.url, o3.url, o4.url, lb):
            async with oauth_client(base, narrow) as mcp:
                assert (await mcp.list_tools()).tools == [], "a token with `mcp` alone lists no tool"
                answer = await mcp.call_tool(
                    "create_transfers", arguments("narrow-2"),
                    input_responses={"approval": types.ElicitResult(action="decline")},
                    request_state=state,
                )
                # Its view has no such tool: nothing is looked up, nothing recorded.
                assert (answer.is_error, text(answer)) == (True, "unknown tool `create_transfers`"), answer
            for created in (transfer, report):
                task_id = created["taskId"]
                unknown = f"Mcp error: -32602: no task `{task_id}` here"
                got = await task(f"{base}/mcp", narrow, "get", task_id)
                assert got == (None, unknown), ("tasks/get", got)
                answered = await task(f"{base}/mcp", narrow, "update", task_id, "decline")
                assert answered == (None, unknown), ("tasks/update", answered)
                # Answered as the cancel of a task that was never made; nothing withdrawn.
                answer, error = await task(f"{base}/mcp", narrow, "cancel", task_id)
                assert (answer, error and error.replace(task_id, "{id}")) == await never_made(task_id), \
                    (answer, error)
                tried += 3
        await asyncio.sleep(1.5)  # past a running task's read of its cancellation
        for base in (o1.url, o2.url, o3.url, o4.url):
            got, _ = await task(f"{base}/mcp", full, "get", transfer["taskId"])
            assert got["status"] == "input_required", got
            got, _ = await task(f"{base}/mcp", full, "get", report["taskId"])
            assert got["status"] == "working", got
        decided = psql("SELECT count(*) FROM toolkit_approval_decisions WHERE call_id IN "
                       "(SELECT call_id FROM toolkit_pending_approvals WHERE arguments LIKE '%\"narrow-%')")
        assert decided == "0", f"{decided} decisions recorded"
        assert reports("narrow-report")["narrow-report"][4] is None, "the report was stopped"
        # Her full token withdraws both (cleaning up): that one reaches them.
        for created in (transfer, report):
            assert await task(f"{lb}/mcp", full, "cancel", created["taskId"]) == ({}, None)
        assert psql("SELECT count(*) FROM mcp_server_transfers WHERE reference LIKE 'narrow-%'") == "0"
        print(f"  narrower token: {tried} task requests and 4 request-state answers on o2-o4 and the balancer "
              "reached nothing", flush=True)

    for body in [
        four_principals_quotas_hold_on_four_oauth_replicas_through_reauthentication_and_a_kill,
        a_narrower_token_of_the_same_user_reaches_none_of_its_calls_on_the_fleet,
    ]:
        if not ONLY or body.__name__ in ONLY:
            await check(body.__name__, body)


if __name__ == "__main__":
    # A TERM (a timeout, the calling script ending) unwinds through main's
    # `finally`, which stops the fleet.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(asyncio.run(main()))
