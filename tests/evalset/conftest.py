"""Shared fixtures of the evaluation-set tests: small corpora, a chat server, the CLI in a subprocess."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ragunc.corpus.stdlib import build_stdlib_frame
from tests.support.chat_server import ChatServer

ROOT = Path(__file__).resolve().parents[2]
MODULES = (
    "bisect",
    "heapq",
    "textwrap",
    "shlex",
    "fnmatch",
    "glob",
    "gzip",
    "netrc",
    "colorsys",
    "calendar",
    "csv",
    "getopt",
    "difflib",
    "fractions",
    "statistics",
    "string",
)


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory) -> Path:
    """A dozen stdlib modules' documentation as a JSONL corpus (about 150 chunks of 100 words)."""
    path = tmp_path_factory.mktemp("corpus") / "docs.jsonl"
    build_stdlib_frame(modules=MODULES, topics=False).to_json(path, orient="records", lines=True, force_ascii=False)
    return path


SPANISH = {
    "riego": "El sistema de riego automático se programa desde el panel principal. Cada zona del jardín tiene "
    "su propio temporizador y un sensor de humedad que evita regar cuando la tierra ya está mojada. "
    "Para cambiar la duración del riego hay que mantener pulsado el botón de zona durante tres segundos "
    "y después girar la rueda hasta los minutos deseados. La válvula principal se cierra sola cuando "
    "detecta una fuga en la tubería, y el panel muestra un aviso rojo con el número de la zona afectada.",
    "facturas": "Las facturas se emiten el primer día hábil de cada mes y se envían por correo electrónico al "
    "titular del contrato. Si el pago se retrasa más de quince días, la empresa aplica un recargo "
    "del dos por ciento sobre el importe pendiente. Los clientes pueden descargar las facturas "
    "antiguas desde el área privada de la web, donde también se guardan los justificantes de pago "
    "y el historial de consumo de los últimos veinticuatro meses del suministro.",
    "garantia": "La garantía cubre los defectos de fabricación durante dos años desde la fecha de compra. No "
    "incluye los daños causados por golpes, por la humedad ni por reparaciones hechas fuera del "
    "servicio técnico oficial. Para solicitar una reparación el cliente debe presentar el ticket "
    "de compra y describir la avería en el formulario, que asigna un número de seguimiento con el "
    "que se puede consultar el estado del pedido en cualquier momento del proceso.",
}


@pytest.fixture(scope="session")
def spanish_corpus(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("es") / "docs.jsonl"
    pd.DataFrame({"doc_id": list(SPANISH), "text": list(SPANISH.values())}).to_json(
        path, orient="records", lines=True, force_ascii=False
    )
    return path


@pytest.fixture
def server():
    with ChatServer() as running:
        yield running
