"""GET /healthz: answers at once, even while every sandbox worker is busy."""
from fastapi import APIRouter

router = APIRouter()


@router.get("/healthz")
async def healthz() -> dict:
    # async and free of locks: it runs on the event loop, never waiting for a thread or a run.
    return {"status": "ok"}
