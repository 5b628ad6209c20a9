"""The official Python MCP SDK as an OAuth client of `examples/mcp_server` in its
OAuth mode (run by scripts/oauth_test.sh, which starts npm `oauth2-mock-server`
and the server).

The SDK's `ClientCredentialsOAuthProvider` does the whole MCP authorization
dance itself: the server's 401 points it at the protected resource metadata, that
names the authorization server, whose metadata gives the token endpoint; the
token request carries the RFC 8707 `resource`. Each check prints `ok <name>` or
`FAILED <name>: <why>`; the last line is `N passed, N failed`.
"""

import asyncio
import os
import sys
import traceback

import httpx2
from mcp import Client
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthToken

# The scopes come from the authorization server's policy per client
# (scripts/oauth_mock_server.mjs): partner-app gets `mcp external`, staff-laptop
# `mcp internal`, no-mcp-app only `external`. The SDK asks for the server's
# `scopes_supported`, as the MCP specification says.
URL = os.environ["MCP_SERVER_URL"]  # like http://127.0.0.1:PORT/mcp
ISSUER = os.environ["OAUTH_ISSUER"]
EXTERNAL_TOOLS = ["create_tasks", "get_tasks", "update_tasks"]

results = []


class Memory:
    """Token storage in memory (one per client)."""

    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, info):
        self.client_info = info


def client(client_id, storage=None):
    auth = ClientCredentialsOAuthProvider(
        server_url=URL,
        storage=storage or Memory(),
        client_id=client_id,
        client_secret="not checked by the mock",
        issuer=ISSUER,
    )
    http = httpx2.AsyncClient(auth=auth)
    transport = streamable_http_client(URL, http_client=http)
    return Client(transport, mode="2026-07-28", cache=None)


async def check(name, body):
    try:
        await body()
    except Exception as error:  # noqa: BLE001 - every failure is reported
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        if os.environ.get("OAUTH_TEST_TRACE"):
            traceback.print_exception(error)
        results.append((name, detail))
        print(f"FAILED {name}: {detail}", flush=True)
    else:
        results.append((name, None))
        print(f"ok {name}", flush=True)


async def main():
    async def the_external_scope_lists_the_external_view():
        storage = Memory()
        async with client("partner-app", storage) as mcp:
            listed = await mcp.list_tools()
            names = [tool.name for tool in listed.tools]
            assert names == EXTERNAL_TOOLS, names
        # The SDK obtained a token from the mock server, for this resource.
        assert storage.tokens is not None and storage.tokens.access_token, storage.tokens

    async def the_token_calls_a_tool_in_its_view():
        async with client("partner-app") as mcp:
            created = await mcp.call_tool("create_tasks", {"tasks": [{"title": "from python"}]})
            assert not created.is_error, created
            listed = await mcp.call_tool("get_tasks", {})
            assert not listed.is_error, listed
            assert "from python" in str(listed.structured_content or listed.content), listed

    async def a_tool_outside_the_view_is_unknown():
        async with client("partner-app") as mcp:
            refused = await mcp.call_tool("delete_memories", {"ids": [1]})
            assert refused.is_error, refused
            text = refused.content[0].text
            assert text.startswith("unknown tool `delete_memories`"), text

    async def the_internal_scope_lists_everything():
        async with client("staff-laptop") as mcp:
            listed = await mcp.list_tools()
            assert len(listed.tools) == 23, [tool.name for tool in listed.tools]

    async def without_the_required_scope_the_server_refuses():
        storage = Memory()
        try:
            async with client("no-mcp-app", storage) as mcp:
                await mcp.list_tools()
        except Exception as error:  # noqa: BLE001 - the SDK wraps it in task groups
            while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
                error = error.exceptions[0]
            assert "Server returned an error response" in str(error), repr(error)
        else:
            raise AssertionError("a token without `mcp` was accepted")
        # The token the SDK got (the authorization server's policy left out
        # `mcp`) is answered 403 with the scope it lacks.
        token = storage.tokens.access_token
        metadata = URL.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
        async with httpx2.AsyncClient() as http:
            response = await http.post(
                URL,
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                headers={"Authorization": f"Bearer {token}"},
            )
        assert response.status_code == 403, response.status_code
        assert response.headers["www-authenticate"] == (
            'Bearer error="insufficient_scope", scope="mcp", '
            'error_description="the token lacks the scope mcp", '
            f'resource_metadata="{metadata}"'
        ), response.headers["www-authenticate"]

    async def a_raw_request_without_a_token_gets_the_challenge():
        async with httpx2.AsyncClient() as http:
            response = await http.post(URL, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            assert response.status_code == 401, response.status_code
            challenge = response.headers["www-authenticate"]
            metadata = URL.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
            assert challenge == f'Bearer resource_metadata="{metadata}"', challenge
            document = (await http.get(metadata)).json()
            assert document["resource"] == URL, document
            assert document["authorization_servers"] == [ISSUER], document

    for check_body in [
        the_external_scope_lists_the_external_view,
        the_token_calls_a_tool_in_its_view,
        a_tool_outside_the_view_is_unknown,
        the_internal_scope_lists_everything,
        without_the_required_scope_the_server_refuses,
        a_raw_request_without_a_token_gets_the_challenge,
    ]:
        await check(check_body.__name__, check_body)

    failed = sum(1 for _, detail in results if detail)
    print(f"python oauth client: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
