/**
 * Fake LLM provider servers speaking the real wire formats on 127.0.0.1, for tests of fermix's wires,
 * router and CLI. One module path to import; each wire lives in its own file.
 */
export { startFakeAnthropic } from "./anthropic.ts";
export { type Flavor, startFakeChatCompletions } from "./chat-completions.ts";
export { startFakeOpenAIResponses } from "./openai-responses.ts";
export type { FakeLlm, FakeReply, RecordedRequest, ReportedUsage } from "./types.ts";
