// The official TypeScript SDK's v2 client (@modelcontextprotocol/client) with the
// official Tasks extension (@modelcontextprotocol/ext-tasks), both pinned in
// package-lock.json, following one `approve` call as an MCP task (SEP-2663) for
// the fleet test (scripts/fleet_test.py):
//
//   node task_client.mjs ASK_URL POLL_URL TOKEN TOOL ARGUMENTS_JSON
//
// 1. A client pinned to 2026-07-28 calls TOOL on ASK_URL, requiring a task, and
//    prints the task it got: {"event": "created", "taskId", "status", ...}.
// 2. It hands the task off (ext-tasks' serialized task reference) and closes.
// 3. A second client, on POLL_URL (the balancer), resumes the task from that
//    reference and lets ext-tasks poll it until it ends, printing every status it
//    sees ({"event": "task", ...}), the replicas that answered its task requests
//    ({"event": "served", "by": [...]}, from the balancer's `X-Served-By`) and
//    the outcome ({"event": "outcome", ...}).
//
// Every line is one JSON object on stdout; exit status 1 with the error on stderr
// when anything fails. TASK_CLIENT_TRACE=FILE appends every task request and its
// answer to FILE, one JSON line each.
//
// ext-tasks sends the V2 task traffic (`tools/call` with a task, `tasks/*`) through
// a host-owned `rawDispatch`, because the SDK's 2026-07-28 codec refuses it (a
// `resultType: "task"` answer, `tasks/get`); see "Supply the V2 request path" in
// https://modelcontextprotocol.github.io/ext-tasks/typescript/adapters-and-schemas.html.
// `rawDispatch` below is that seam and nothing more: its own SDK transport (so
// the SDK's HTTP framing, headers and SSE parsing), and request ids and response
// matching of its own.

import { appendFileSync } from "node:fs";

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient } from "@modelcontextprotocol/ext-tasks/client";

const PROTOCOL_VERSION = "2026-07-28";
const CLIENT_INFO = { name: "fleet-ts-task-client", version: "1.0.0" };
// The endpoint identity scopes serialized task references: one fleet, whichever
// replica or balancer answers, is one endpoint.
const ENDPOINT_ID = "toolkit-fleet";

function print(line) {
    process.stdout.write(`${JSON.stringify(line)}\n`);
}

/**
 * The host's request coordinator for ext-tasks: one SDK transport, its own ids.
 * `served` collects the replica that answered each of its requests, as a load
 * balancer names it (HAProxy's `X-Served-By`; null without one).
 */
async function rawDispatcher(url, headers, served) {
    const recording = async (input, init) => {
        const response = await fetch(input, init);
        served.push(response.headers.get("x-served-by"));
        return response;
    };
    const transport = new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers },
        fetch: recording,
    });
    const waiting = new Map();
    let next = 0;
    transport.onmessage = (message) => {
        const answer = waiting.get(message.id);
        if (answer === undefined) return;
        waiting.delete(message.id);
        answer.resolve(message);
    };
    transport.onerror = (error) => {
        for (const answer of waiting.values()) answer.reject(error);
        waiting.clear();
    };
    await transport.start();
    const dispatch = async (request, options = {}) => {
        next += 1;
        const id = `ext-tasks-${next}`;
        const answered = new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
        try {
            await transport.send({ jsonrpc: "2.0", id, ...request }, {
                ...(options.signal === undefined ? {} : { requestSignal: options.signal }),
            });
        } catch (error) {
            waiting.delete(id);
            throw error;
        }
        const message = await answered;
        if (process.env.TASK_CLIENT_TRACE) {
            appendFileSync(process.env.TASK_CLIENT_TRACE, `${JSON.stringify({ url, sent: { id, ...request }, got: message })}\n`);
        }
        return "error" in message
            ? { kind: "error", error: message.error }
            : { kind: "result", result: message.result };
    };
    return { dispatch, close: () => transport.close() };
}

/** A client pinned to 2026-07-28 on `url`, with ext-tasks' session over it. */
async function taskSession(url, token) {
    const headers = { Authorization: `Bearer ${token}` };
    const client = new Client(CLIENT_INFO, {
        capabilities: {},
        versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    const served = [];
    const raw = await rawDispatcher(url, headers, served);
    const session = createTaskSessionFromClient(client, {
        endpointId: ENDPOINT_ID,
        rawDispatch: raw.dispatch,
        v2RequestFraming: {
            protocolVersion: PROTOCOL_VERSION,
            clientInfo: CLIENT_INFO,
            clientCapabilities: {},
        },
    });
    // Closing never hides the error that ended the run (ext-tasks cancels the
    // executions a session still owns when it closes).
    const close = async () => {
        for (const step of [() => session.close(), () => raw.close(), () => client.close()]) {
            try {
                await step();
            } catch (error) {
                process.stderr.write(`task_client.mjs: while closing: ${error?.message ?? error}\n`);
            }
        }
    };
    return { session, close, served };
}

/** The parts of ext-tasks' task view the fleet test checks. */
function view(task) {
    return {
        taskId: task.taskId,
        status: task.status,
        statusMessage: task.statusMessage,
        ttlMs: task.retentionMs,
        pollIntervalMs: task.suggestedPollIntervalMs,
        inputRequests: task.raw.inputRequests,
    };
}

async function main() {
    const [askUrl, pollUrl, token, tool, argumentsJson] = process.argv.slice(2);
    if (argumentsJson === undefined) {
        throw new Error("usage: task_client.mjs ASK_URL POLL_URL TOKEN TOOL ARGUMENTS_JSON");
    }
    const asking = await taskSession(askUrl, token);
    let reference;
    try {
        const execution = await asking.session.callTool(tool, JSON.parse(argumentsJson), {
            task: { preference: "require" },
        });
        if (execution.kind !== "task") throw new Error("the call did not become a task");
        // Handed off (not cancelled when this session closes), then read once here.
        await execution.handoff((serialized) => {
            reference = serialized;
        });
        const created = await asking.session.task(reference.taskId).snapshot();
        print({ event: "created", ...view(created) });
    } finally {
        await asking.close();
    }

    const polling = await taskSession(pollUrl, token);
    try {
        const execution = await polling.session.resumeTask(reference);
        const { outcome } = await execution.settle({
            onEvent: (event) => {
                if (event.type === "task") print({ event: "task", ...view(event.task) });
            },
        });
        print({ event: "served", by: polling.served });
        switch (outcome.status) {
            case "completed":
                print({ event: "outcome", status: "completed", result: outcome.result });
                break;
            case "failed":
                print({
                    event: "outcome",
                    status: "failed",
                    error: { message: outcome.error.message, code: outcome.error.code, data: outcome.error.data },
                });
                break;
            default:
                print({ event: "outcome", status: outcome.status });
        }
    } finally {
        await polling.close();
    }
}

main().then(
    () => process.exit(0),
    (error) => {
        process.stderr.write(`task_client.mjs: ${error?.stack ?? error}\n`);
        process.exit(1);
    },
);
