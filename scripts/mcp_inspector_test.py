"""Drives the MCP Inspector CLI (run by scripts/mcp_inspector_test.sh).

Each argument is a server: `stdio:COMMAND ARGS...` or `http:URL:TOKEN` (an empty
token sends no header). For each: `tools/list`, then `tools/call` of every
listed tool with no arguments. Prints `ok ...` / `FAILED ...` per check and
`N passed, N failed` last; exits 1 when anything failed.
"""

import json
import os
import signal
import subprocess
import sys

# The conformance server's tools that ask their client mid-call (`toolkit::mcp::Ask`)
# for a form or a model's message: the Inspector CLI declares neither capability,
# so each is refused with -32021 naming it, and nothing runs.
ASKS = {
    "multi_input": "elicitation",
    "test_input_required_result_elicitation": "elicitation",
    "test_input_required_result_multi_round": "elicitation",
    "test_input_required_result_multiple_inputs": "elicitation",
    "test_input_required_result_request_state": "elicitation",
    "test_input_required_result_sampling": "sampling",
    "test_input_required_result_tampered_state": "elicitation",
    "test_missing_capability": "sampling",
}

NODE = os.environ["INSPECTOR_NODE"]
CLI = os.environ["INSPECTOR_CLI"]
results = []


def run(command, timeout):
    """subprocess.run, but a timeout stops the command's whole process group:
    the CLI starts processes of its own (a stdio target's server, at least), which
    killing only the CLI would leave running."""
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, start_new_session=True) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except BaseException:
            os.killpg(process.pid, signal.SIGKILL)
            raise
        return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def inspector(target, *arguments):
    """Runs the CLI; gives its parsed JSON output or raises with its stderr."""
    command = [NODE, CLI, "--cli"]
    if target.startswith("stdio:"):
        command += target[len("stdio:"):].split()
    else:
        url, _, token = target[len("http:"):].rpartition(":")
        command += [url, "--transport", "http"]
        if token:
            command += ["--header", f"Authorization: Bearer {token}"]
    done = run(command + list(arguments), timeout=120)
    # Exit 5 with `tool_is_error`: the SDK accepted the result, an error result
    # (most tools need arguments, and none are sent). Anything else, such as the
    # SDK rejecting structured content that does not match the output schema,
    # fails.
    if done.returncode == 5:
        try:
            # The last line: a stdio server's own stderr comes first.
            error = json.loads(done.stderr.strip().splitlines()[-1])["error"]
        except (ValueError, KeyError, TypeError, IndexError):
            error = None
        if isinstance(error, dict) and error.get("code") == "tool_is_error":
            result = json.loads(done.stdout)
            assert result.get("isError") is True, result
            return result
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: {done.stderr.strip() or done.stdout.strip()}")
    return json.loads(done.stdout)


def check(name, body):
    try:
        body()
    except Exception as error:  # noqa: BLE001 - every failure is reported
        results.append((name, str(error)))
        print(f"FAILED {name}: {error}", flush=True)
    else:
        results.append((name, None))
        print(f"ok {name}", flush=True)


for target in sys.argv[1:]:
    label = target.split(":")[0] + " " + (target.split()[0].rsplit("/", 1)[-1] if target.startswith("stdio:") else target.split(":", 1)[1].rsplit(":", 1)[0])
    listed = {}

    def lists():
        tools = inspector(target, "--method", "tools/list")["tools"]
        assert tools, "no tools listed"
        listed.update({tool["name"]: tool for tool in tools})

    check(f"tools/list [{label}]", lists)
    for name in sorted(listed):

        def calls(name=name):
            # A tool that must be a task (`task = required`) refuses a client
            # without the Tasks extension, as the Inspector is: -32021, nothing run.
            # The Inspector prints the error's message, not its code.
            if (listed[name].get("_meta") or {}).get("toolkit/task") == "required":
                try:
                    inspector(target, "--method", "tools/call", "--tool-name", name)
                except RuntimeError as error:
                    assert "needs the `io.modelcontextprotocol/tasks` extension" in str(error), error
                    return
                raise AssertionError("a required task tool answered a client without tasks")
            if name in ASKS:
                try:
                    inspector(target, "--method", "tools/call", "--tool-name", name)
                except RuntimeError as error:
                    refusal = f"this tool asks the client for `{ASKS[name]}`, a capability it did not declare"
                    assert refusal in str(error), error
                    return
                raise AssertionError("a tool that asks answered a client that cannot be asked")
            result = inspector(target, "--method", "tools/call", "--tool-name", name)
            assert isinstance(result.get("content"), list) and result["content"], result
            if not result.get("isError") and "outputSchema" in listed[name]:
                assert "structuredContent" in result, result

        check(f"tools/call {name} [{label}]", calls)

failed = sum(1 for _, detail in results if detail is not None)
print(f"inspector: {len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
