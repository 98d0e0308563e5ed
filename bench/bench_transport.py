"""CPU a request of the fetcher's client over its transport (`net/transport.py`).

    python bench/bench_transport.py [--requests 1000] [--concurrency 32] [--runs 3]

A small HTTP/1.1 server with keep-alive (an asyncio protocol, standard library only)
runs in its own process on 127.0.0.1, so its CPU is not counted. It answers
`/304/N` with `304 Not Modified` and `/200/N` with 200 and a 16 KB body. The fetcher
(`net/fetcher.py`, over the guarded transport) fetches every URL once, 32 at a time,
and the client process's CPU time (`time.process_time()`) over the whole batch is
divided by the requests. The answer kinds alternate within each run so that a quiet or
busy moment of the machine falls on both.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import time

from claimcheck.net.fetch import FetchRequest
from claimcheck.net.fetcher import Fetcher, FetchSettings

BODY = (b"0123456789abcdef" * 1024)[:16_384]
KINDS = ("304", "200")


class _Server(asyncio.Protocol):
    """Answers each request on a connection as it arrives, keeping the connection."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._buffer = b""

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        while b"\r\n\r\n" in self._buffer:
            head, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
            path = head.split(b" ", 2)[1]
            if path.startswith(b"/304/"):
                answer = b'HTTP/1.1 304 Not Modified\r\nETag: "e"\r\n\r\n'
            else:
                answer = (
                    b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nETag: "e"\r\n'
                    b"Content-Length: %d\r\n\r\n" % len(BODY)
                ) + BODY
            self._transport.write(answer)


def _serve(ready: multiprocessing.SimpleQueue[int]) -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(_Server, "127.0.0.1", 0)
        ready.put(server.sockets[0].getsockname()[1])
        await server.serve_forever()

    asyncio.run(main())


def measure(port: int, kind: str, count: int, concurrency: int) -> float:
    """Milliseconds of the client's CPU a request for one batch of `count` requests."""
    settings = FetchSettings(
        concurrency=concurrency,
        per_host=concurrency,
        per_host_interval=0,
        retries=0,
        allow_addresses=("127.0.0.1",),
    )
    etag = '"e"' if kind == "304" else None
    requests = [
        FetchRequest(url=f"http://127.0.0.1:{port}/{kind}/{i}", etag=etag) for i in range(count)
    ]

    async def run() -> float:
        async with Fetcher(settings) as fetcher:
            started = time.process_time()
            outcomes = await fetcher.fetch_all(requests)
            spent = time.process_time() - started
        failed = [o for o in outcomes if type(o).__name__ == "FetchFailed"]
        assert not failed, failed[:3]
        return spent

    return asyncio.run(run()) * 1000 / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    ready: multiprocessing.SimpleQueue[int] = multiprocessing.SimpleQueue()
    server = multiprocessing.Process(target=_serve, args=(ready,), daemon=True)
    server.start()
    port = ready.get()
    figures: dict[str, list[float]] = {}
    try:
        for run in range(args.runs):
            for kind in KINDS if run % 2 == 0 else KINDS[::-1]:
                ms = measure(port, kind, args.requests, args.concurrency)
                figures.setdefault(kind, []).append(ms)
                print(f"run {run + 1}: {kind}: {ms:.3f} ms/request", flush=True)
    finally:
        server.terminate()
    print("median over runs (ms of client CPU a request):")
    for kind in KINDS:
        values = figures[kind]
        print(f"  {kind}: {statistics.median(values):.3f}  {[round(v, 3) for v in values]}")


if __name__ == "__main__":
    main()
