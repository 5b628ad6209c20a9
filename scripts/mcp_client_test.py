"""The official Python MCP SDK as a client of `examples/mcp_server` over
streamable HTTP (run by scripts/mcp_client_test.sh, which starts the server).

Each check prints `ok <name>` or `FAILED <name>: <why>`; the last line is
`N passed, N failed`, and the exit status is 1 when anything failed.
"""

import asyncio
import json
import logging
import os
import sys
import traceback

import httpx2
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

BASE = os.environ["MCP_SERVER_URL"]  # like http://127.0.0.1:PORT
TOKENS = {
    "internal": "internal-token",
    "copilot": "copilot-token",
    "external": "external-token",
}
EXTERNAL_TOOLS = ["create_tasks", "get_tasks", "update_tasks"]

results = []


class Warnings(logging.Handler):
    """What the SDK warns about (an unlisted tool's result, say): must be nothing."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


sdk_warnings = Warnings()
logging.getLogger("mcp").addHandler(sdk_warnings)


asked = []


async def user_accepts(context, params):
    """The client's user, asked to approve a call: says yes."""
    asked.append(params.message)
    return types.ElicitResult(action="accept")


def client(kind, token, mode):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    transport = streamable_http_client(f"{BASE}/mcp/{kind}", http_client=http)
    # cache=None: lists differ per token, and these checks switch tokens.
    return Client(transport, mode=mode, cache=None, elicitation_callback=user_accepts)


def text(result):
    assert len(result.content) == 1, result
    return result.content[0].text


async def check(name, body):
    try:
        await body()
    except Exception as error:  # noqa: BLE001 - every failure is reported
        # The SDK runs inside task groups: report what actually failed.
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        results.append((name, detail))
        print(f"FAILED {name}: {detail}", flush=True)
    else:
        results.append((name, None))
        print(f"ok {name}", flush=True)


async def main():
    for mode in ["legacy", "2026-07-28"]:

        async def lists_the_tokens_view():
            async with client("external", TOKENS["external"], mode) as mcp:
                listed = await mcp.list_tools()
                names = [tool.name for tool in listed.tools]
                assert names == EXTERNAL_TOOLS, names
            async with client("internal", TOKENS["internal"], mode) as mcp:
                listed = await mcp.list_tools()
                assert len(listed.tools) == 23, len(listed.tools)

        async def calls_a_tool():
            async with client("external", TOKENS["external"], mode) as mcp:
                created = await mcp.call_tool(
                    "create_tasks", {"tasks": [{"title": f"Water the plants ({mode})"}]}
                )
                assert not created.is_error, created
                found = await mcp.call_tool("get_tasks", {"include_done": True})
                assert not found.is_error, found
                if mode == "legacy":
                    # Before 2026-07-28 structured content must be an object; a
                    # list result travels as JSON text only.
                    assert found.structured_content is None, found
                    tasks = json.loads(text(found))
                else:
                    tasks = found.structured_content
                    assert tasks == json.loads(text(found)), found
                titles = [task["title"] for task in tasks]
                assert f"Water the plants ({mode})" in titles, titles

        async def bad_arguments_are_a_tool_error():
            async with client("external", TOKENS["external"], mode) as mcp:
                bad = await mcp.call_tool("create_tasks", {"tasks": [{"title": 42}]})
                assert bad.is_error, bad
                assert text(bad).startswith("invalid arguments at `tasks[0].title`: "), text(bad)

        async def a_tool_outside_the_view_is_unknown():
            async with client("external", TOKENS["external"], mode) as mcp:
                hidden = await mcp.call_tool("delete_tasks", {"ids": [1]})
                missing = await mcp.call_tool("delete_tazks", {"ids": [1]})
                assert hidden.is_error and missing.is_error, (hidden, missing)
                assert text(hidden) == "unknown tool `delete_tasks`", text(hidden)
                assert text(missing) == "unknown tool `delete_tazks`", text(missing)

        async def an_alias_names_the_tool_to_call():
            async with client("internal", TOKENS["internal"], mode) as mcp:
                by_alias = await mcp.call_tool("fetch_memory", {"id": 1})
                assert by_alias.is_error, by_alias
                assert text(by_alias) == "unknown tool `fetch_memory`; did you mean `get_memories`?", text(by_alias)

        async def a_wrong_token_is_refused():
            try:
                async with client("external", "not-the-token", mode) as mcp:
                    await mcp.list_tools()
            except Exception:  # noqa: BLE001 - the SDK's error type is its own business
                pass
            else:
                raise AssertionError("a wrong token listed tools")
            async with httpx2.AsyncClient() as http:
                for headers in [{}, {"Authorization": "Bearer internal-token"}]:
                    response = await http.post(
                        f"{BASE}/mcp/external",
                        headers={"Accept": "application/json, text/event-stream", **headers},
                        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                    )
                    assert response.status_code == 401, response.status_code

        async def an_approval_round_trip():
            async with client("internal", TOKENS["internal"], mode) as mcp:
                created = await mcp.call_tool(
                    "create_memories", {"memories": [{"content": f"tea, black ({mode})"}]}
                )
                assert not created.is_error, created
                memory = created.structured_content[0]["id"] if mode != "legacy" else json.loads(text(created))[0]["id"]
                asked.clear()
                deleted = await mcp.call_tool("delete_memories", {"ids": [memory]})
                if mode == "legacy":
                    assert deleted.is_error, deleted
                    # No input-required results before 2026-07-28: the pending
                    # approval is the result, for the application to resume.
                    assert asked == [], asked
                    # Not structured content: that must match the output schema.
                    assert deleted.structured_content is None, deleted
                    pending = deleted.meta["toolkit/pending_approval"]
                    assert pending["tool"] == "delete_memories", pending
                    assert pending["arguments"] == {"ids": [memory]}, pending
                else:
                    assert not deleted.is_error, deleted
                    assert asked == [
                        f"Allow `delete_memories` to run with {{\"ids\":[{memory}]}}? It has not run yet."
                    ], asked
                    assert deleted.structured_content == {"deleted": [memory]}, deleted

        for body in [
            an_approval_round_trip,
            lists_the_tokens_view,
            calls_a_tool,
            bad_arguments_are_a_tool_error,
            a_tool_outside_the_view_is_unknown,
            an_alias_names_the_tool_to_call,
            a_wrong_token_is_refused,
        ]:
            await check(f"{body.__name__} [{mode}]", body)

    async def the_sdk_warned_about_nothing():
        assert sdk_warnings.messages == [], sdk_warnings.messages

    await check("the_sdk_warned_about_nothing", the_sdk_warned_about_nothing)

    failed = sum(1 for _, detail in results if detail is not None)
    print(f"python mcp client: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
