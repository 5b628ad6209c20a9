"""Lists the tools of published MCP servers over stdio and writes them as one
catalog of toolkit `CatalogEntry` JSON, named as `ExternalServer` offers them
(`{label}_{escaped remote name}`, group = label).

Run by scripts/mcp_catalog.sh, which installs the servers at pinned versions
(npm and PyPI) first. Usage: list_tools.py SERVERS.json NODE_MODULES VENV OUT.json
"""

import asyncio
import json
import os
import sys
import tempfile

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def escape(name: str) -> str:
    """toolkit's `runtime::escape_name`: `[A-Za-z0-9_]` kept, other bytes `-hh`."""
    out = []
    for byte in name.encode():
        c = chr(byte)
        if (c.isascii() and c.isalnum()) or c == "_":
            out.append(c)
        else:
            out.append(f"-{byte:02x}")
    return "".join(out)


async def tools_of(server, node_modules, venv, scratch):
    kind, program = server["run"]
    if kind == "npm":
        command = os.path.join(node_modules, ".bin", program)
    else:
        command = os.path.join(venv, "bin", program)
    args = [arg.replace("{scratch}", scratch) for arg in server.get("args", [])]
    env = dict(os.environ)
    env.update(server.get("env", {}))
    params = StdioServerParameters(command=command, args=args, env=env, cwd=scratch)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await asyncio.wait_for(session.initialize(), 60)
            listed = await asyncio.wait_for(session.list_tools(), 60)
            return listed.tools


def params_of(schema):
    properties = (schema or {}).get("properties") or {}
    return [
        {"name": name, "description": (spec or {}).get("description", "") if isinstance(spec, dict) else ""}
        for name, spec in properties.items()
    ]


async def main():
    servers_path, node_modules, venv, out_path = (os.path.abspath(arg) for arg in sys.argv[1:5])
    servers = json.load(open(servers_path))
    entries = []
    with tempfile.TemporaryDirectory() as scratch:
        for server in servers:
            label = server["label"]
            try:
                tools = await tools_of(server, node_modules, venv, scratch)
            except Exception as error:  # one server's failure is reported, not fatal
                print(f"{label}: {error!r}", file=sys.stderr)
                continue
            print(f"{label}: {len(tools)} tools", file=sys.stderr)
            for tool in tools:
                entries.append(
                    {
                        "name": f"{label}_{escape(tool.name)}",
                        "description": tool.description or "",
                        "group": label,
                        "params": params_of(tool.input_schema),
                    }
                )
    with open(out_path, "w") as out:
        json.dump(entries, out, indent=1, ensure_ascii=False)
        out.write("\n")


asyncio.run(main())
