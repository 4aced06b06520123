"""POST /api/embed-tickets: a one-time ticket for an embedded page's address (app/services/embed_tickets.py).
The access-token middleware lets only a holder of the token (its Bearer) reach it."""
from __future__ import annotations

from fastapi import APIRouter

from app.config import get_settings
from app.responses import SafeJSONResponse
from app.schemas import ApiRequest
from app.services import embed_tickets

router = APIRouter()


class TicketRequest(ApiRequest):
    path: str


@router.post("/api/embed-tickets", status_code=201)
async def create_ticket(req: TicketRequest):
    token = get_settings().access_token
    if not token:
        return SafeJSONResponse({"detail": "this server needs no access token: open the page's address as it is"},
                                status_code=409)
    try:
        ticket = embed_tickets.issue(token, req.path)
    except ValueError as exc:
        return SafeJSONResponse({"detail": str(exc)}, status_code=422)
    return SafeJSONResponse({"ticket": ticket, "expires_in": embed_tickets.TICKET_TTL_S}, status_code=201)
