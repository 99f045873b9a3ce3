"""Typed ports: what a process may ask of each internal contract.

Each port mirrors one gRPC service method for method, request for request, so
both adapters meet it without translation: the gRPC client adapter
(services/common/rpc/transport.py, remote) and the in-process adapter (the same
servicer object called directly). A use case names the port it needs, never an
adapter; one bootstrap per process decides which adapter stands behind it.

Method names keep the contract's spelling (CamelCase), so a reader can go from
a call here to its rpc in proto/ by name.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from tabletop.deck.v1 import deck_service_pb2 as deck_pb
from tabletop.dice.v1 import dice_service_pb2 as dice_pb
from tabletop.match.v1 import match_service_pb2 as match_pb
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mm_pb
from tabletop.rules.v1 import rules_service_pb2 as rules_pb


class DicePort(Protocol):
    """Commit-reveal randomness for one match (tabletop.dice.v1.DiceService)."""

    async def CommitSeed(self, request: dice_pb.CommitSeedRequest) -> dice_pb.CommitSeedResponse: ...

    async def RollDice(self, request: dice_pb.RollDiceRequest) -> dice_pb.RollDiceResponse: ...

    async def OpenWindow(self, request: dice_pb.OpenWindowRequest) -> dice_pb.OpenWindowResponse: ...

    async def Permute(self, request: dice_pb.PermuteRequest) -> dice_pb.PermuteResponse: ...

    async def RevealSeed(self, request: dice_pb.RevealSeedRequest) -> dice_pb.RevealSeedResponse: ...


class DeckPort(Protocol):
    """Hidden piles whose order only the deck knows (tabletop.deck.v1.DeckService)."""

    async def ShufflePile(self, request: deck_pb.ShufflePileRequest) -> deck_pb.ShufflePileResponse: ...

    async def DrawCards(self, request: deck_pb.DrawCardsRequest) -> deck_pb.DrawCardsResponse: ...

    async def PutCards(self, request: deck_pb.PutCardsRequest) -> deck_pb.PutCardsResponse: ...

    async def ReleaseMatch(self, request: deck_pb.ReleaseMatchRequest) -> deck_pb.ReleaseMatchResponse: ...


class RulesPort(Protocol):
    """One game's pure engine behind the generic rules contract (tabletop.rules.v1.RulesService)."""

    async def DescribeGame(self, request: rules_pb.DescribeGameRequest) -> rules_pb.DescribeGameResponse: ...

    async def Setup(self, request: rules_pb.SetupRequest) -> rules_pb.SetupResponse: ...

    async def Decide(self, request: rules_pb.DecideRequest) -> rules_pb.DecideResponse: ...

    async def Replay(self, request: rules_pb.ReplayRequest) -> rules_pb.ReplayResponse: ...

    async def ListLegalActions(
        self, request: rules_pb.ListLegalActionsRequest
    ) -> rules_pb.ListLegalActionsResponse: ...

    async def GetView(self, request: rules_pb.GetViewRequest) -> rules_pb.GetViewResponse: ...

    async def GetPosition(self, request: rules_pb.GetPositionRequest) -> rules_pb.GetPositionResponse: ...


class MatchPort(Protocol):
    """The only writer of match logs (tabletop.match.v1.MatchService)."""

    async def CreateMatch(self, request: match_pb.CreateMatchRequest) -> match_pb.CreateMatchResponse: ...

    async def JoinMatch(self, request: match_pb.JoinMatchRequest) -> match_pb.JoinMatchResponse: ...

    async def LeaveMatch(self, request: match_pb.LeaveMatchRequest) -> match_pb.LeaveMatchResponse: ...

    async def StartMatch(self, request: match_pb.StartMatchRequest) -> match_pb.StartMatchResponse: ...

    async def FormMatch(self, request: match_pb.FormMatchRequest) -> match_pb.FormMatchResponse: ...

    async def SubmitAction(self, request: match_pb.SubmitActionRequest) -> match_pb.SubmitActionResponse: ...

    async def UndoActions(self, request: match_pb.UndoActionsRequest) -> match_pb.UndoActionsResponse: ...

    async def GetMatch(self, request: match_pb.GetMatchRequest) -> match_pb.GetMatchResponse: ...

    async def ListMatches(self, request: match_pb.ListMatchesRequest) -> match_pb.ListMatchesResponse: ...

    async def GetView(self, request: match_pb.GetViewRequest) -> match_pb.GetViewResponse: ...

    async def ListLegalActions(
        self, request: match_pb.ListLegalActionsRequest
    ) -> match_pb.ListLegalActionsResponse: ...

    async def GetPosition(self, request: match_pb.GetPositionRequest) -> match_pb.GetPositionResponse: ...


class MatchmakerPort(Protocol):
    """Tickets, ratings and leaderboards (tabletop.matchmaker.v1.MatchmakerService)."""

    async def FindMatch(self, request: mm_pb.FindMatchRequest) -> mm_pb.FindMatchResponse: ...

    def WatchTicket(self, request: mm_pb.WatchTicketRequest) -> AsyncIterator[mm_pb.WatchTicketResponse]: ...

    def Queue(self, request: mm_pb.QueueRequest) -> AsyncIterator[mm_pb.QueueResponse]: ...

    async def CancelTicket(self, request: mm_pb.CancelTicketRequest) -> mm_pb.CancelTicketResponse: ...

    async def GetRating(self, request: mm_pb.GetRatingRequest) -> mm_pb.GetRatingResponse: ...

    async def ListLeaderboard(self, request: mm_pb.ListLeaderboardRequest) -> mm_pb.ListLeaderboardResponse: ...
