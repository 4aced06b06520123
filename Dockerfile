# Dagscope for a classroom: `docker build -t dagscope .` then see "Docker" in README.md.
FROM python:3.11-slim

# graphviz draws the graphs; gcc + libc6-dev compile the fused kernels and engine/native's eager
# operators (this image has Python's headers; without a compiler the engine falls back to its numpy
# backend and Python operators); libseccomp2 gives the sandbox its syscall filter.
RUN apt-get update \
 && apt-get install -y --no-install-recommends graphviz gcc libc6-dev libseccomp2 \
 && rm -rf /var/lib/apt/lists/*

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DAGSCOPE_DATA_DIR=/data \
    DAGSCOPE_KERNEL_CACHE=/data/kernels \
    OPENBLAS_NUM_THREADS=1

# A user without privileges serves the app; only /data (a volume) and /tmp are writable by it.
RUN useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin dagscope \
 && mkdir -p /data/kernels && chown -R dagscope:dagscope /data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY app ./app
COPY engine ./engine
COPY static ./static
COPY templates ./templates
COPY examples ./examples
# Editable install: the code stays in /app, where the app finds its static files and templates.
# Importing the engine once builds its C operators into the kernel cache (/data/kernels), which a
# new volume then starts with; the chown hands that cache to the user that serves.
RUN pip install -e . && python -c "import app.main, engine" && chown -R dagscope:dagscope /data

USER dagscope
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status != 200)"]
CMD ["python", "-m", "app", "--host", "0.0.0.0", "--port", "8000"]
