"""The load benchmark's tools on FastMCP: `get_sum` (the trivial tool) and
`set_pages` (a count the schema constrains to 1..=100), served over stateless
streamable HTTP with JSON responses, as the Rust servers are.

Prints `listening on http://127.0.0.1:PORT/mcp` once the socket is bound.
Run by scripts/load_bench.sh from its virtual environment.
"""

import socket
import sys
from typing import Annotated

from fastmcp import FastMCP
from pydantic import Field

mcp = FastMCP("load")


@mcp.tool
def get_sum(
    a: Annotated[int, Field(description="The first number.")],
    b: Annotated[int, Field(description="The second number.")],
) -> int:
    """Get the sum of two numbers."""
    return a + b


@mcp.tool
def set_pages(
    count: Annotated[int, Field(ge=1, le=100, description="How many pages, 1 to 100.")],
    pinned: Annotated[bool, Field(description="Keep it on top.")] = False,
) -> int:
    """Set the page count of the document."""
    return count if pinned else count + 1


def main() -> None:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1024)
    port = listener.getsockname()[1]
    print(f"listening on http://127.0.0.1:{port}/mcp", flush=True)
    mcp.run(
        transport="http",
        show_banner=False,
        path="/mcp",
        log_level="warning",
        json_response=True,
        stateless_http=True,
        sockets=[listener],
    )


if __name__ == "__main__":
    sys.exit(main())
