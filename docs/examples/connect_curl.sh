#!/usr/bin/env bash
# A match through the HTTP edge with curl and jq (Connect protocol, JSON):
# two players sign in, one creates a match, both join, one starts it, the
# mover reads its legal actions and plays the first one as it came back,
# then a spectator watches the match live for a moment.
#
#   EDGE=http://127.0.0.1:8080 GAME=la_isla bash docs/examples/connect_curl.sh
set -euo pipefail
EDGE=${EDGE:-http://127.0.0.1:8080}
GAME=${GAME:-la_isla}

# The API is five services by concern; a method's path names its service.
path() {
  case $1 in
    Authenticate|RefreshSession|GetSeatToken) echo "/tabletop.gateway.v1.SignInService/$1" ;;
    ListLegalActions|SubmitAction|UndoActions|Play) echo "/tabletop.gateway.v1.PlayService/$1" ;;
    GetView|WatchMatch|GetMatchLog) echo "/tabletop.gateway.v1.WatchService/$1" ;;
    FindMatch|WatchTicket|Queue|CancelTicket|GetRating|ListLeaderboard) echo "/tabletop.gateway.v1.MatchmakingService/$1" ;;
    *) echo "/tabletop.gateway.v1.LobbyService/$1" ;;
  esac
}

# One unary call: POST JSON to /<service>/<Method>. A second argument is the
# bearer token. A refusal is an HTTP error status with a JSON body
# {"code": "...", "message": "...", "details": [...]}; --fail-with-body stops here on one.
call() {
  local method=$1 body=$2 token=${3:-}
  curl -sS --fail-with-body -X POST "$EDGE$(path "$method")" \
    -H 'Content-Type: application/json' \
    ${token:+-H "Authorization: Bearer $token"} \
    -d "$body"
}

echo "== games"
call ListGames '{}' | jq -c '.games[] | {game, minSeats, maxSeats}'

echo "== two players sign in as guest devices (keep the device id to sign in again)"
ANA=$(call Authenticate "{\"deviceId\": \"curl-ana-$RANDOM$RANDOM\"}" | jq -r .sessionToken)
BEN=$(call Authenticate "{\"deviceId\": \"curl-ben-$RANDOM$RANDOM\"}" | jq -r .sessionToken)

echo "== ana creates a $GAME match for two"
MATCH=$(call CreateMatch "{\"game\": \"$GAME\", \"seatCount\": 2}" "$ANA" | jq -r .match.matchId)
echo "match $MATCH"

echo "== both join: each answer carries the seat and the seat's token"
declare -A SEAT_TOKEN
for player in "$ANA" "$BEN"; do
  joined=$(call JoinMatch "{\"matchId\": \"$MATCH\"}" "$player")
  SEAT_TOKEN[$(jq -r '.seat // 0' <<<"$joined")]=$(jq -r .token <<<"$joined")
done

echo "== seat 0 starts the match (a command id makes a retry harmless)"
call StartMatch "{\"matchId\": \"$MATCH\", \"commandId\": \"start-1\"}" "${SEAT_TOKEN[0]}" | jq -c .

echo "== who is to move, and seat 0's view (its hidden cards included)"
VIEW=$(call GetView "{\"matchId\": \"$MATCH\"}" "${SEAT_TOKEN[0]}")
jq -c '{version: .match.version, toMove: .match.toMove, view: .view["@type"]}' <<<"$VIEW"
MOVER=$(jq -r '.match.toMove[0] // 0' <<<"$VIEW")

echo "== seat $MOVER's legal actions: each an Any written as JSON with its @type"
LEGAL=$(call ListLegalActions "{\"matchId\": \"$MATCH\"}" "${SEAT_TOKEN[$MOVER]}")
jq -c '.actions[:3][]' <<<"$LEGAL"

echo "== seat $MOVER plays the first one, sent back exactly as it came"
ACTION=$(jq -c '.actions[0]' <<<"$LEGAL")
VERSION=$(jq -r .version <<<"$LEGAL")
call SubmitAction "{\"matchId\": \"$MATCH\", \"action\": $ACTION, \"commandId\": \"seat$MOVER-v$VERSION\"}" \
  "${SEAT_TOKEN[$MOVER]}" | jq -c .

echo "== a refusal: the same command id with another request"
call SubmitAction "{\"matchId\": \"$MATCH\", \"action\": $ACTION, \"commandId\": \"start-1\"}" \
  "${SEAT_TOKEN[$MOVER]}" | jq -c '{code, message}' || true

# A server stream (WatchMatch) is Connect's enveloped format: each message is
# one flag byte, a 4-byte big-endian length and the JSON; so is the request.
envelope() {
  local n=${#1}
  printf "\\000\\$(printf %03o $((n >> 24 & 255)))\\$(printf %03o $((n >> 16 & 255)))"
  printf "\\$(printf %03o $((n >> 8 & 255)))\\$(printf %03o $((n & 255)))%s" "$1"
}
echo "== watching as a spectator for 2 s (a live stream; a browser keeps it open)"
envelope "{\"matchId\": \"$MATCH\"}" |
  curl -sS -N --max-time 2 -X POST "$EDGE$(path WatchMatch)" \
    -H 'Content-Type: application/connect+json' --data-binary @- 2>/dev/null |
  tr -c '[:print:]\n' '\n' | grep -o '{".*' | jq -c '{version, status: .match.status, toMove: .match.toMove}' || true
