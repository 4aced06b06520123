"""`import keras` (Keras 3's own name) through the sandbox: the alias resolves to the facade's
tf.keras in the confined child, fit prints Keras' lines, and History reaches the record's summaries."""

CODE = """import numpy as np
import keras
x = np.linspace(-1, 1, 16, dtype="float32").reshape(8, 2)
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
history = model.fit(x, x[:, :1], epochs=2, batch_size=4, verbose=2)
print(sorted(history.history))
"""


def test_keras_runs_in_the_sandbox(client):
    record = client.post("/api/run", json={"code": CODE}).json()
    assert record["ok"], record.get("error")
    lines = record["stdout"].splitlines()
    assert lines[0] == "Epoch 1/2" and lines[1].startswith("2/2 - 0s - 0s/step - loss: ")
    assert lines[-1] == "['loss']"
    assert [s["tag"] for s in record["summaries"]["scalars"]] == ["loss"]
    assert record["graphs"], "fit's steps draw a graph"
