"""GET /healthz: answers at once, even while every sandbox worker is busy."""
from fastapi import APIRouter

router = APIRouter()


@router.get("/healthz")
def healthz() -> dict:
    return {"status": "ok"}
