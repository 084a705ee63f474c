"""The official Python client (`mcp` 2.3.x) against `curbi serve` (issue 9) or `curbi mcp --stdio` (issue 21): auto
negotiation and a 2026-07-28 pin (and, over stdio, the legacy handshake), each listing the tools and calling every
public tool. Usage: python clients.py URL, or python clients.py --stdio CURBI (run by scripts/mcp-clients.sh)."""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters

PUBLIC = ["policy_check", "validate_policy", "search", "export_regression", "verify_bundle", "fetch"]
STARTER = {"policy": {"prices": [{"item": "Starter", "amount": 49}]}, "reply": "Starter is $99 a month."}
CALLS = {
    "policy_check": (STARTER, False),
    "validate_policy": ({"policy": {}}, False),
    "search": ({"query": "proof bundle inclusion"}, False),
    "export_regression": ({**STARTER, "title": "Starter price"}, False),
    # An empty bundle is unreadable: a tool error, still an answer from the proof verifier.
    "verify_bundle": ({"bundle": {}, "keys": {}}, True),
    "fetch": ({"id": "doc:proof"}, False),
}


async def exercise(server, mode: str, version: str = "2026-07-28") -> None:
    async with Client(server, mode=mode) as client:
        assert client.protocol_version == version, client.protocol_version
        tools = (await client.list_tools()).tools
        assert [t.name for t in tools] == PUBLIC, [t.name for t in tools]
        for name in PUBLIC:
            args, expect_error = CALLS[name]
            result = await client.call_tool(name, args)
            assert bool(result.is_error) == expect_error, (name, result)
            assert result.content[0].type == "text", (name, result)
            assert json.loads(result.content[0].text) == result.structured_content, name
            if name == "policy_check":
                assert result.structured_content["findings"][0]["rule"] == "price:mismatch"
        transport = "stdio" if isinstance(server, StdioServerParameters) else "HTTP"
        print(f"ok - mcp (Python) over {transport}, mode={mode}, {client.protocol_version}: "
              f"listed {len(tools)} tools and called each")


async def main(args: list[str]) -> None:
    if args[0] == "--stdio":
        # The client starts the command itself, as desktop agents and IDEs do.
        server = StdioServerParameters(command=args[1], args=["mcp", "--stdio"])
        await exercise(server, "legacy", "2025-11-25")
    else:
        server = args[0]
    for mode in ("auto", "2026-07-28"):
        await exercise(server, mode)


asyncio.run(main(sys.argv[1:]))
