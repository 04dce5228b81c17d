"""Language models behind any endpoint: config, clients, retries, limits, usage and cost.

The ``openai`` and ``anthropic`` SDKs are imported only when a client first calls out,
so importing this package stays cheap.
"""

from statebox.llm._client import KeyLookup, ModelClient, ModelHub
from statebox.llm._config import (
    ModelConfig,
    ModelsFile,
    Price,
    PriceTable,
    Provider,
    RetryPolicy,
    Role,
    load_models_file,
    load_pricing,
    parse_model_spec,
)
from statebox.llm._limits import EndpointLimiter, endpoint_key, endpoint_slot, limiting
from statebox.llm._messages import (
    DONE_MARKER,
    JUDGE_PROMPT_HEAD,
    TASK_HEADER,
    USER_HEADER,
    USER_STOP,
    AssistantTurn,
    Completion,
    Message,
    RequestedCall,
    ToolOutput,
    ToolSchema,
    UserText,
    task_headers,
)
from statebox.llm._protocol_server import (
    ByteTokenizer,
    ProtocolRequest,
    ProtocolServer,
    Reply,
    Responder,
)
from statebox.llm._retry import call_with_retry, retry_after_s, should_retry
from statebox.llm._setup import ModelSetup
from statebox.llm._tokens import VLLM_VERSION, TokenTrace, TokenTurn, token_turn
from statebox.llm._usage import ModelCall, Usage, UsageMeter, metering, record_call

__all__ = [
    "DONE_MARKER",
    "JUDGE_PROMPT_HEAD",
    "TASK_HEADER",
    "USER_HEADER",
    "USER_STOP",
    "VLLM_VERSION",
    "AssistantTurn",
    "ByteTokenizer",
    "Completion",
    "EndpointLimiter",
    "KeyLookup",
    "Message",
    "ModelCall",
    "ModelClient",
    "ModelConfig",
    "ModelHub",
    "ModelSetup",
    "ModelsFile",
    "Price",
    "PriceTable",
    "ProtocolRequest",
    "ProtocolServer",
    "Provider",
    "Reply",
    "RequestedCall",
    "Responder",
    "RetryPolicy",
    "Role",
    "TokenTrace",
    "TokenTurn",
    "ToolOutput",
    "ToolSchema",
    "Usage",
    "UsageMeter",
    "UserText",
    "call_with_retry",
    "endpoint_key",
    "endpoint_slot",
    "limiting",
    "load_models_file",
    "load_pricing",
    "metering",
    "parse_model_spec",
    "record_call",
    "retry_after_s",
    "should_retry",
    "task_headers",
    "token_turn",
]
