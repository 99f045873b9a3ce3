"""The HTTP edge against the real stack: Connect (JSON and binary), gRPC-Web, CORS, files."""

from __future__ import annotations

import base64
import subprocess
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from google.rpc import error_details_pb2
from tabletop.gateway.v1 import gateway_pb2 as gw
from tabletop.gateway.v1.lobby_service_connect import LobbyServiceClient
from tabletop.gateway.v1.sign_in_service_connect import SignInServiceClient
from tabletop.gateway.v1.watch_service_connect import WatchServiceClient

from contract.gateway import PATHS, GatewayStub
from deploy.stack import Stack
from services.common.errors import from_rpc_error
from tests.integration.conftest import PIG
from tests.integration.connect_wire import END_STREAM, envelope, frames

pytestmark = pytest.mark.integration

ALLOWED_ORIGIN = "http://table.example"


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[Stack]:
    env = {**PIG, "TABLETOP_CORS_ORIGINS": ALLOWED_ORIGIN}
    with Stack(redis_url=redis_url, extra_env=env, matchmakers=1) as running:
        yield running


@pytest.fixture
def http(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.edge_url, timeout=30.0) as client:
        yield client


def call(http: httpx.Client, method: str, body: dict[str, Any], token: str = "") -> httpx.Response:
    """One Connect unary call in JSON, as curl or fetch() would make it."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return http.post(PATHS[method], json=body, headers=headers)


def ok(answer: httpx.Response) -> dict[str, Any]:
    assert answer.status_code == 200, answer.text
    return answer.json()


def sign_in(http: httpx.Client) -> str:
    return ok(call(http, "Authenticate", {"deviceId": f"edge-{uuid.uuid4()}"}))["sessionToken"]


def test_the_curl_of_the_issue_lists_the_games(stack: Stack) -> None:
    url = stack.edge_url + PATHS["ListGames"]
    command = ["curl", "-sS", "--fail-with-body", "-X", "POST", url, "-H", "Content-Type: application/json", "-d", "{}"]
    answer = subprocess.run(command, capture_output=True, text=True, timeout=30, check=True)
    games = {game["game"] for game in httpx.Response(200, content=answer.stdout).json()["games"]}
    assert {"el_dorado", "la_isla", "discover", "pig"} <= games


def test_a_whole_pig_match_over_connect_json(http: httpx.Client) -> None:
    players = [sign_in(http), sign_in(http)]
    match_id = ok(call(http, "CreateMatch", {"game": "pig", "seatCount": 2}, players[0]))["match"]["matchId"]
    seats = [ok(call(http, "JoinMatch", {"matchId": match_id}, player))["token"] for player in players]
    ok(call(http, "StartMatch", {"matchId": match_id, "commandId": "start"}, seats[0]))
    moves = 0
    while (summary := ok(call(http, "GetView", {"matchId": match_id}))["match"])["status"] != "MATCH_STATUS_FINISHED":
        token = seats[summary["toMove"][0]]
        legal = ok(call(http, "ListLegalActions", {"matchId": match_id}, token))["actions"]
        action = choose(legal)
        assert action["@type"] == "type.googleapis.com/tabletop.testing.v1.Action"
        submitted = {"matchId": match_id, "action": action, "commandId": f"move-{moves}"}
        assert not ok(call(http, "SubmitAction", submitted, token)).get("duplicate")
        moves += 1
        assert moves < 500, "the match did not end"
    assert sorted(summary["outcome"]["ranking"])[0] == 1
    watched = watch_to_the_end(http, match_id, seats[0])
    assert watched["match"]["status"] == "MATCH_STATUS_FINISHED"
    assert watched["view"]["@type"] == "type.googleapis.com/tabletop.testing.v1.View"


def choose(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Bank whenever there is something to bank, else roll: every match ends."""
    by_kind = {next(key for key in action if key != "@type"): action for action in legal}
    return by_kind.get("hold") or by_kind["roll"]


def watch_to_the_end(http: httpx.Client, match_id: str, token: str) -> dict[str, Any]:
    """WatchMatch as a Connect server stream over HTTP/1.1: updates until the finished one."""
    headers = {"Content-Type": "application/connect+json", "Authorization": f"Bearer {token}"}
    body = envelope({"matchId": match_id, "withView": True})
    with http.stream("POST", PATHS["WatchMatch"], content=body, headers=headers) as answer:
        assert answer.status_code == 200
        for flags, message in frames(answer.iter_raw()):
            assert not flags & END_STREAM, message
            if message["match"]["status"] == "MATCH_STATUS_FINISHED":
                return message
    raise AssertionError("the stream ended before the match")


def grpc_failure(stack: Stack, method: str, request: Any, token: str = "") -> grpc.aio.AioRpcError:
    """The same call straight to the gateway's gRPC port, which must fail."""
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    with grpc.insecure_channel(stack.gateway_addr) as channel:
        stub = GatewayStub(channel)
        with pytest.raises(grpc.RpcError) as failed:
            getattr(stub, method)(request, metadata=metadata, timeout=30)
    return failed.value  # type: ignore[return-value]


def connect_reason(answer: httpx.Response) -> str:
    (detail,) = answer.json()["details"]
    assert detail["type"] == "google.rpc.ErrorInfo"
    padded = detail["value"] + "=" * (-len(detail["value"]) % 4)
    return error_details_pb2.ErrorInfo.FromString(base64.b64decode(padded)).reason


@pytest.mark.parametrize(
    ("case", "http_status"),
    [("missing token", 401), ("forged token", 401), ("bad field", 400)],
)
def test_refusals_have_the_grpc_code_message_and_reason(
    stack: Stack, http: httpx.Client, case: str, http_status: int
) -> None:
    token = {"missing token": "", "forged token": "e30.e30.forged", "bad field": sign_in(http)}[case]
    seats = 99 if case == "bad field" else 2
    answer = call(http, "CreateMatch", {"game": "pig", "seatCount": seats}, token)
    expected = grpc_failure(stack, "CreateMatch", gw.CreateMatchRequest(game="pig", seat_count=seats), token)
    assert answer.status_code == http_status
    assert answer.json()["code"] == expected.code().name.lower()
    assert answer.json()["message"] == expected.details()
    assert connect_reason(answer) == from_rpc_error(expected).reason  # type: ignore[arg-type]


def test_watch_ticket_streams_over_connect_json(http: httpx.Client) -> None:
    token = sign_in(http)
    ticket = ok(call(http, "FindMatch", {"game": "pig", "playersMin": 2}, token))["ticketId"]
    headers = {"Content-Type": "application/connect+json", "Authorization": f"Bearer {token}"}
    body = envelope({"ticketId": ticket})
    with http.stream("POST", PATHS["WatchTicket"], content=body, headers=headers) as answer:
        flags, first = next(frames(answer.iter_raw()))
    assert not flags & END_STREAM, first
    assert first["ticketId"] == ticket and first["status"].startswith("TICKET_STATUS_")


def test_play_is_refused_over_http_1_1_with_a_clear_status(http: httpx.Client) -> None:
    headers = {"Content-Type": "application/connect+json"}
    answer = http.post(PATHS["Play"], content=envelope({"watch": {"matchId": "m"}}), headers=headers)
    ((flags, end),) = list(frames(iter([answer.content])))
    assert flags & END_STREAM
    assert end["error"]["code"] == "unimplemented"
    assert "WatchMatch" in end["error"]["message"]


@pytest.mark.parametrize("protocol", [ProtocolType.GRPC_WEB, ProtocolType.CONNECT], ids=["grpc-web", "connect-proto"])
async def test_binary_unary_and_streaming_with_the_generated_client(stack: Stack, protocol: ProtocolType) -> None:
    async with (
        LobbyServiceClient(stack.edge_url, protocol=protocol) as lobby,
        SignInServiceClient(stack.edge_url, protocol=protocol) as signin,
        WatchServiceClient(stack.edge_url, protocol=protocol) as watch,
    ):
        games = await lobby.list_games(gw.ListGamesRequest())
        assert "pig" in {game.game for game in games.games}
        session = (await signin.authenticate(gw.AuthenticateRequest(device_id=f"web-{uuid.uuid4()}"))).session_token
        bearer = {"authorization": f"Bearer {session}"}
        created = await lobby.create_match(gw.CreateMatchRequest(game="pig", seat_count=1), headers=bearer)
        match_id = created.match.match_id
        seat = await lobby.join_match(gw.JoinMatchRequest(match_id=match_id), headers=bearer)
        seated = {"authorization": f"Bearer {seat.token}"}
        await lobby.start_match(gw.StartMatchRequest(match_id=match_id), headers=seated)
        updates = watch.watch_match(gw.WatchMatchRequest(match_id=match_id, with_view=True))
        first = await anext(aiter(updates))
        assert first.match.match_id == match_id and first.view.TypeName() == "tabletop.testing.v1.View"
        await updates.aclose()
        with pytest.raises(ConnectError) as refused:
            await lobby.create_match(gw.CreateMatchRequest(game="pig", seat_count=2))
        assert refused.value.code == Code.UNAUTHENTICATED


def test_cors_preflight_is_allowed_for_the_configured_origin_only(http: httpx.Client) -> None:
    def preflight(origin: str) -> httpx.Response:
        return http.options(
            PATHS["ListGames"],
            headers={
                "Origin": origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type,authorization,connect-protocol-version",
            },
        )

    allowed = preflight(ALLOWED_ORIGIN)
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == ALLOWED_ORIGIN
    assert "grpc-status" in call_from(http, ALLOWED_ORIGIN).headers["access-control-expose-headers"]
    refused = preflight("http://elsewhere.example")
    assert refused.status_code == 400
    assert "access-control-allow-origin" not in refused.headers


def call_from(http: httpx.Client, origin: str) -> httpx.Response:
    return http.post(PATHS["ListGames"], json={}, headers={"Origin": origin})


def test_files_are_served_at_the_root(http: httpx.Client) -> None:
    page = http.get("/")
    assert page.status_code == 200
    assert "Tabletop" in page.text


def test_grpc_proper_is_sent_to_the_gateway_with_a_clear_status(http: httpx.Client) -> None:
    answer = http.post(PATHS["ListGames"], content=b"", headers={"Content-Type": "application/grpc"})
    assert answer.headers["grpc-status"] == str(grpc.StatusCode.UNIMPLEMENTED.value[0])
    assert "gateway" in answer.headers["grpc-message"]
