import Foundation
import SeleneShared

/// Selene's OpenAPI 3.1 document, built from the same limits and enums the server validates
/// with (a test checks it against the route table; schemathesis checks the server against it).
enum SeleneOpenAPI {
    static let data: Data = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(document)) ?? Data("{}".utf8)
    }()

    static var document: JSONValue {
        .object([
            "openapi": "3.1.0",
            "info": .object(["title": "Selene", "version": "1.0.0",
                             "description": "A personal second brain: notes captured from the phone, processed by a local LLM, grouped into threads, searched, chatted with and briefed on."]),
            "servers": .array([.object(["url": "http://127.0.0.1:5678"])]),
            "security": .array([.object(["bearer": .array([])])]),
            "components": .object([
                "securitySchemes": .object(["bearer": .object(["type": "http", "scheme": "bearer",
                                                               "description": "One of SELENE_API_TOKEN's tokens. Without configured tokens the server is open and listens on loopback only."])]),
                "schemas": .object(responseDatesAnyDay(schemas, paths: paths)),
            ]),
            "paths": .object(paths),
        ])
    }

    // MARK: Paths

    static var paths: [String: JSONValue] {
        var p: [String: [String: JSONValue]] = [:]
        func add(_ method: String, _ path: String, _ op: JSONValue) { p[path, default: [:]][method] = op }

        add("get", "/health", op("health", "Liveness, including the database", public: true,
                                   responses: ["200": ok("HealthStatus", "Up"), "503": err("The database can't be reached")]))
        add("get", "/metrics", op("metrics", "Metrics in Prometheus's text format (requests by route and status with latency histograms, the queue's depth, processing outcomes, model-call latency). From loopback, or with SELENE_METRICS_TOKEN as a Bearer token",
                                    public: true,
                                    responses: ["200": .object(["description": "The exposition", "content": .object(["text/plain": .object(["schema": .object(["type": "string"])])])]),
                                                "403": err("Not from loopback and without the metrics token")]))
        add("get", "/openapi.json", op("openAPI", "This document", public: true,
                                         responses: ["200": .object(["description": "The OpenAPI document", "content": .object(["application/json": .object(["schema": .object(["type": "object"])])])])]))
        add("post", "/webhook/api/drafts", op("captureDrafts", "Capture from the Drafts app (idempotent by uuid, or by content without one)",
                                               body: "DraftsCapture",
                                               responses: ["201": ok("Note", "Captured"), "200": ok("Note", "Already captured: the same note, or updated when the draft was edited (SELENE_DRAFTS_RESEND)"),
                                                           "400": err("Invalid input"), "413": err("The note is over 1 MB"), "415": err("Not JSON")]))
        add("post", "/webhook/api/export-obsidian", op("exportObsidian", "Write notes and threads into the Obsidian vault",
                                                        body: "ExportRequest", bodyRequired: false,
                                                        responses: ["200": ok("ExportResult", "What was written"), "400": err("Invalid input"),
                                                                    "404": err("No such note"), "415": err("Not JSON"), "503": err("No vault configured")]))
        add("get", "/api/notes", op("listNotes", "Notes, newest first", query: [limit(100)], responses: ["200": ok("NoteList", "Notes"), "400": err("Bad limit")]))
        add("post", "/api/notes", op("createNote", "Write a note (web app, terminal)", body: "NewNote",
                                      responses: ["201": ok("Note", "Captured"), "400": err("Invalid input"), "413": err("Over 1 MB"), "415": err("Not JSON")]))
        add("get", "/api/notes/recent", op("recentNotes", "Notes written in the last days",
                                            query: [intParam("days", 7, 1, 3650, "How many days back"), limit(10)],
                                            responses: ["200": ok("RecentNotes", "Notes"), "400": err("Bad parameter")]))
        add("get", "/api/notes/since/{date}", op("notesSince", "Notes written since a date",
                                                  pathParams: [param("date", "path", .object(["type": "string", "pattern": .string(dateOrDayPattern)]),
                                                                     "An ISO-8601 date-time or a day (UTC)")],
                                                  query: [limit(20)], responses: ["200": ok("NotesSince", "Notes"), "400": err("Bad date or limit")]))
        add("post", "/api/notes/search", op("searchNotes", "Keyword (full-text) search", body: "SearchRequest",
                                             responses: ["200": ok("SearchResponse", "Matches, best first"), "400": err("Invalid input"), "415": err("Not JSON")]))
        add("post", "/api/notes/retrieve", op("retrieveNotes", "Hybrid retrieval: full text and vectors fused by reciprocal rank", body: "RetrieveRequest",
                                               responses: ["200": ok("RetrieveResponse", "Results, best first, and which ranking made them"),
                                                           "400": err("Invalid input"), "415": err("Not JSON")]))
        add("post", "/api/notes/thread-assignments", op("threadAssignments", "Which thread each note belongs to", body: "ThreadAssignmentsRequest",
                                                         responses: ["200": ok("ThreadAssignments", "Assignments of the notes that have a thread"),
                                                                     "400": err("Invalid input"), "415": err("Not JSON")]))
        add("get", "/api/notes/{id}", op("getNote", "One note with its processed fields", pathParams: [idParam()],
                                          responses: ["200": ok("Note", "The note"), "400": err("Bad id"), "404": err("No such note")]))
        add("put", "/api/notes/{id}", op("replaceNote", "Correct a note, whole: new words put it back in the queue (analysis, embedding, thread, tasks redone)",
                                          pathParams: [idParam()], body: "NoteEdit",
                                          responses: ["200": ok("Note", "The note as it is now"), "400": err("Invalid input"), "404": err("No such note"),
                                                      "413": err("Over 1 MB"), "415": err("Not JSON")]))
        add("patch", "/api/notes/{id}", op("patchNote", "Change some of a note's fields (\"title\": \"\" clears it)", pathParams: [idParam()], body: "NoteEditPatch",
                                            responses: ["200": ok("Note", "The note as it is now"), "400": err("Invalid input or nothing to change"),
                                                        "404": err("No such note"), "413": err("Over 1 MB"), "415": err("Not JSON")]))
        add("delete", "/api/notes/{id}", op("deleteNote", "Delete a note and what was made of it (threads, associations, embeddings, index, vault file)",
                                             pathParams: [idParam()],
                                             responses: ["204": .object(["description": "Deleted"]), "400": err("Bad id"), "404": err("No such note")]))
        add("get", "/api/notes/{id}/related", op("relatedNotes", "Notes related to one note", pathParams: [idParam()], query: [limit(10)],
                                                  responses: ["200": ok("RelatedNotes", "Related notes"), "400": err("Bad id or limit"), "404": err("No such note")]))
        add("post", "/api/search", op("legacySearch", "The earlier macOS app's search: the same retrieval as /api/notes/retrieve, in its shape (distance: 0 for the best, smaller is nearer)",
                                       body: "RetrieveRequest",
                                       responses: ["200": ok("LegacySearchResponse", "Notes, nearest first"), "400": err("Invalid input"), "415": err("Not JSON")]))
        add("post", "/api/related-notes", op("legacyRelatedNotes", "The earlier macOS app's related notes: the same as /api/notes/{id}/related, in its shape",
                                              body: "LegacyRelatedRequest",
                                              responses: ["200": ok("LegacyRelatedResponse", "Related notes, strongest first"), "400": err("Invalid input"),
                                                          "404": err("No such note"), "415": err("Not JSON")]))
        add("get", "/api/processing", op("processingStatus", "How many notes are pending, processing, done and failed",
                                          responses: ["200": ok("ProcessingCounts", "Counts")]))
        add("post", "/api/processing/retry", op("retryFailed", "Queue failed notes again", responses: ["200": ok("Touched", "How many")]))
        add("get", "/api/threads", op("listThreads", "Threads by momentum, then last activity",
                                       query: [limit(10), param("status", "query", enumSchema(ThreadStatus.self), "active (default), dormant or archived", required: false)],
                                       responses: ["200": ok("ThreadList", "Threads"), "400": err("Bad parameter")]))
        add("get", "/api/threads/search/{name}", op("findThread", "The best case-insensitive partial name match, with its notes",
                                                     pathParams: [param("name", "path", .object(["type": "string", "minLength": 1, "maxLength": 200]), "Part of a thread's name")],
                                                     responses: ["200": ok("ThreadDetail", "The thread"), "400": err("Bad name"), "404": err("No match")]))
        add("get", "/api/threads/{id}", op("getThread", "A thread with its notes", pathParams: [idParam()],
                                            responses: ["200": ok("ThreadDetail", "The thread"), "400": err("Bad id"), "404": err("No such thread")]))
        add("put", "/api/threads/{id}", op("renameThread", "The person's name for a thread (kept when its summary is written again)", pathParams: [idParam()],
                                            body: "ThreadRename",
                                            responses: ["200": ok("NoteThread", "The thread"), "400": err("Invalid name"), "404": err("No such thread"), "415": err("Not JSON")]))
        add("post", "/api/threads/{id}/merge", op("mergeThread", "Make the thread part of another (its notes, tasks and conversations move; it is gone)",
                                                   pathParams: [idParam()], body: "ThreadMerge",
                                                   responses: ["200": ok("NoteThread", "The thread it is part of now"), "400": err("Invalid input"),
                                                               "404": err("No such thread"), "409": err("into names no thread, or this one"), "415": err("Not JSON")]))
        add("post", "/api/threads/{id}/split", op("splitThread", "Some of the thread's notes become a thread of their own (a sub-project)",
                                                   pathParams: [idParam()], body: "ThreadSplit",
                                                   responses: ["201": ok("NoteThread", "The new thread"), "400": err("Invalid input"),
                                                               "404": err("No such thread"), "409": err("A note that isn't the thread's, or all of them"),
                                                               "415": err("Not JSON")]))
        add("put", "/api/notes/{id}/thread", op("placeNote", "Put a note in a thread, or in none (null): re-clustering leaves it there",
                                                 pathParams: [idParam()], body: "NotePlacement",
                                                 responses: ["200": ok("NotePlacement", "Where it is"), "400": err("Invalid input"), "404": err("No such note"),
                                                             "409": err("threadId names no thread"), "415": err("Not JSON")]))
        add("get", "/api/threads/{id}/tasks", op("threadTasks", "A thread's tasks", pathParams: [idParam()],
                                                  responses: ["200": ok("TaskList", "Tasks, open first"), "400": err("Bad id"), "404": err("No such thread")]))
        add("post", "/api/threads/{id}/tasks", op("addTask", "Add a task to a thread", pathParams: [idParam()], body: "NewTask",
                                                   responses: ["201": ok("ThreadTask", "The task"), "400": err("Invalid input"), "404": err("No such thread"), "415": err("Not JSON")]))
        add("get", "/api/tasks", op("listTasks", "Every task, threaded or not (no threadId): open first, newest first",
                                     query: [param("status", "query", enumSchema(TaskStatus.self), "Only open or only done tasks", required: false), limit(100)],
                                     responses: ["200": ok("AllTasks", "Tasks"), "400": err("Bad parameter")]))
        add("patch", "/api/tasks/{id}", op("updateTask", "Mark a task done or open again", pathParams: [idParam()], body: "TaskUpdate",
                                            responses: ["200": ok("ThreadTask", "The task"), "400": err("Invalid input"), "404": err("No such task"), "415": err("Not JSON")]))
        add("get", "/api/sessions", op("listSessions", "Chat sessions by last update", responses: ["200": ok("SessionList", "Sessions")]))
        add("get", "/api/sessions/{id}", op("getSession", "One session, whole (a cut-off answer marked incomplete)", pathParams: [uuidParam()],
                                             responses: ["200": ok("ChatSession", "The session"), "400": err("Bad id"), "404": err("No such session")]))
        add("put", "/api/sessions/{id}", op("saveSession", "Save a whole session (insert or replace)", pathParams: [uuidParam()], body: "ChatSession",
                                             responses: ["201": ok("ChatSession", "Created"), "200": ok("ChatSession", "Replaced"), "400": err("Invalid input"),
                                                         "409": err("threadId names no thread"), "415": err("Not JSON")]))
        add("delete", "/api/sessions/{id}", op("deleteSession", "Delete a session and its messages", pathParams: [uuidParam()],
                                                responses: ["204": .object(["description": "Deleted"]), "400": err("Bad id"), "404": err("No such session")]))
        add("patch", "/api/sessions/{id}/pin", op("pinSession", "Pin or unpin a session", pathParams: [uuidParam()], body: "PinRequest",
                                                   responses: ["200": ok("ChatSession", "The session"), "400": err("Invalid input"), "404": err("No such session"), "415": err("Not JSON")]))
        add("get", "/api/sessions/{id}/messages", op("sessionMessages", "A session's latest messages, oldest first", pathParams: [uuidParam()], query: [limit(10)],
                                                      responses: ["200": ok("MessageList", "Messages"), "400": err("Bad parameter"), "404": err("No such session")]))
        add("post", "/api/sessions/{id}/messages", op("addMessage", "Log a message of a session", pathParams: [uuidParam()], body: "NewMessage",
                                                       responses: ["201": ok("ConversationMessage", "Logged"), "400": err("Invalid input"), "404": err("No such session"), "415": err("Not JSON")]))
        add("get", "/api/messages", op("recentMessages", "The latest messages of all sessions, oldest first", query: [limit(10)],
                                        responses: ["200": ok("MessageList", "Messages"), "400": err("Bad limit")]))
        add("get", "/api/memories", op("listMemories", "Memories by confidence, then last access",
                                        query: [limit(50), param("includeEmbeddings", "query", .object(["type": "boolean"]), "Include each memory's embedding", required: false)],
                                        responses: ["200": ok("MemoryList", "Memories"), "400": err("Bad parameter")]))
        add("get", "/api/outbound", op("listOutbound", "What left this machine: every request Selene sent out, newest first",
                                        query: [limit(100), param("purpose", "query", .object(["type": "string", "enum": .array(OutboundController.purposes.map { .string($0) })]), "Only this purpose", required: false)],
                                        responses: ["200": ok("OutboundList", "The ledger"), "400": err("Bad parameter")]))
        add("get", "/api/hosted/consent", op("hostedConsent", "Whether your notes may go to the hosted model, and the held request word for word",
                                              responses: ["200": ok("HostedConsent", "Where things stand")]))
        add("post", "/api/hosted/consent", op("answerHostedConsent", "Yes or no to requests with something from your notes going to the hosted model",
                                               body: "HostedConsentAnswer",
                                               responses: ["200": ok("HostedConsent", "The answer kept"), "400": err("Invalid input"),
                                                           "409": err("Nothing to answer: no hosted model may see notes, or none has been held yet"), "415": err("Not JSON")]))
        add("delete", "/api/hosted/consent", op("resetHostedConsent", "Forget the answer: the next request with something from notes is held and shown again",
                                                 responses: ["200": ok("HostedConsent", "Where things stand now")]))
        add("post", "/api/memories", op("createMemory", "Remember something", body: "NewMemory",
                                         responses: ["201": ok("CreatedId", "Its id"), "400": err("Invalid input"), "409": err("sourceSessionId names no session"), "415": err("Not JSON")]))
        add("post", "/api/memories/remember", op("rememberMemory", "Remember what the person said (full confidence, merged into a memory that says the same)",
                                                  body: "RememberRequest",
                                                  responses: ["200": ok("Memory", "The memory it was merged into"), "201": ok("Memory", "The new memory"),
                                                              "400": err("Invalid input"), "409": err("sourceSessionId names no session"), "415": err("Not JSON")]))
        add("post", "/api/memories/touch", op("touchMemories", "Mark memories accessed now", body: "TouchRequest",
                                               responses: ["200": ok("Touched", "How many were found"), "400": err("Invalid input"), "415": err("Not JSON")]))
        add("get", "/api/memories/{id}", op("getMemory", "One memory with its embedding", pathParams: [idParam()],
                                             responses: ["200": ok("Memory", "The memory"), "400": err("Bad id"), "404": err("No such memory")]))
        add("put", "/api/memories/{id}", op("updateMemory", "Change a memory (absent keys stay)", pathParams: [idParam()], body: "MemoryUpdate",
                                             responses: ["200": ok("Memory", "The memory"), "400": err("Invalid input"), "404": err("No such memory"), "415": err("Not JSON")]))
        add("delete", "/api/memories/{id}", op("deleteMemory", "Forget a memory", pathParams: [idParam()],
                                                responses: ["204": .object(["description": "Deleted"]), "400": err("Bad id"), "404": err("No such memory")]))
        add("get", "/api/briefing", op("getBriefing", "Today's briefing (written now if there is none yet today)",
                                        responses: ["200": ok("Briefing", "The briefing")]))
        add("post", "/api/briefing", op("generateBriefing", "Write today's briefing again now", responses: ["201": ok("Briefing", "The briefing")]))
        add("get", "/api/briefing/associations", op("briefingAssociations", "Related notes in different threads, one of them recent",
                                                     query: [param("minSimilarity", "query", .object(["type": "number", "minimum": 0, "maximum": 1]), "Least similarity (0.7)", required: false),
                                                             intParam("recentDays", 7, 1, 3650, "One of the two notes is this recent"), limit(10)],
                                                     responses: ["200": ok("AssociationList", "Pairs, most similar first"), "400": err("Bad parameter")]))
        var transcribe = op("transcribe", "Words from a recording, by this server's own speech-to-text (SELENE_STT_URL); the audio never leaves the machine",
                            responses: ["200": ok("Transcription", "The words"), "400": err("An empty recording"), "413": err("Over 25 MB"),
                                        "415": err("Not audio"), "502": err("The speech-to-text server failed"), "503": err("No speech-to-text configured")])
        if case .object(var o) = transcribe {
            // Sent with the recording's own type (audio/webm, audio/ogg, audio/mp4, audio/wav, audio/mpeg) or as bytes.
            o["requestBody"] = .object(["required": true, "description": "The recording: Content-Type audio/… (its format), or application/octet-stream",
                                        "content": .object(["application/octet-stream": .object(["schema": .object(["type": "string", "format": "binary", "minLength": 1])])])])
            transcribe = .object(o)
        }
        add("post", "/api/transcribe", transcribe)
        add("get", "/api/llm/health", op("llmHealth", "Whether the LLM answers and has its models", responses: ["200": ok("LLMHealth", "Status")]))
        add("post", "/api/llm/generate", op("llmGenerate", "Generate text (stream: true answers NDJSON LLMStreamChunk lines)", body: "GenerateRequest",
                                             responses: ["200": .object(["description": "The answer",
                                                                         "content": .object(["application/json": .object(["schema": ref("GenerateResponse")]),
                                                                                             "application/x-ndjson": .object(["schema": ref("LLMStreamChunk")])])]),
                                                         "400": err("Invalid input, or a model that isn't pulled"), "415": err("Not JSON"), "502": err("The LLM failed"),
                                                         "503": err("No LLM configured, or its model isn't pulled")]))
        add("post", "/api/llm/embed", op("llmEmbed", "Embed a text", body: "EmbedRequest",
                                          responses: ["200": ok("EmbedResponse", "The embedding"), "400": err("Invalid input, or a model that isn't pulled"), "415": err("Not JSON"),
                                                      "502": err("The LLM failed"), "503": err("No LLM configured, or its model isn't pulled")]))
        add("post", "/api/llm/chat", op("llmChat", "A chat answer, streamed as NDJSON LLMStreamChunk lines", body: "LLMChatRequest",
                                         responses: ["200": .object(["description": "Lines of the answer; the last has done: true (and error when it failed)",
                                                                     "content": .object(["application/x-ndjson": .object(["schema": ref("LLMStreamChunk")])])]),
                                                     "400": err("Invalid input, or a model that isn't pulled"), "415": err("Not JSON"), "502": err("The LLM failed"),
                                                     "503": err("No LLM configured, or its model isn't pulled")]))
        add("get", "/api/devices", op("listDevices", "Devices registered for pushes", responses: ["200": ok("DeviceList", "Devices")]))
        add("post", "/api/devices/register", op("registerDevice", "Register a device for pushes (again: refreshes its last-seen time)", body: "DeviceRequest",
                                                 responses: ["201": ok("Device", "Registered"), "200": ok("Device", "Already registered"), "400": err("Invalid input"), "415": err("Not JSON")]))
        add("post", "/api/devices/unregister", op("unregisterDevice", "Stop pushes to a device", body: "DeviceRequest",
                                                   responses: ["200": ok("Unregistered", "Whether it was registered"), "400": err("Invalid input"), "415": err("Not JSON")]))
        return p.mapValues { JSONValue.object($0) }
    }

    static func op(_ id: String, _ summary: String, public isPublic: Bool = false, pathParams: [JSONValue] = [], query: [JSONValue] = [],
                   body: String? = nil, bodyRequired: Bool = true, responses: [String: JSONValue]) -> JSONValue {
        var responses = responses
        var o: [String: JSONValue] = ["operationId": .string(id), "summary": .string(summary)]
        if isPublic {
            o["security"] = .array([])
        } else {
            responses["401"] = err("Missing or malformed Authorization header")
            responses["403"] = err("The token is not accepted")
        }
        responses["405"] = err("Method not allowed")
        o["responses"] = .object(responses)
        if !(pathParams + query).isEmpty { o["parameters"] = .array(pathParams + query) }
        if let body {
            o["requestBody"] = .object(["required": .bool(bodyRequired),
                                        "content": .object(["application/json": .object(["schema": ref(body)])])])
        }
        return .object(o)
    }

    static func ref(_ name: String) -> JSONValue { .object(["$ref": .string("#/components/schemas/\(name)")]) }
    static func ok(_ schema: String, _ description: String) -> JSONValue {
        .object(["description": .string(description), "content": .object(["application/json": .object(["schema": ref(schema)])])])
    }
    static func err(_ description: String) -> JSONValue { ok("Error", description) }
    static func param(_ name: String, _ location: String, _ schema: JSONValue, _ description: String, required: Bool = true) -> JSONValue {
        .object(["name": .string(name), "in": .string(location), "required": .bool(location == "path" || required),
                 "schema": schema, "description": .string(description)])
    }
    static func idParam() -> JSONValue { param("id", "path", .object(["type": "integer", "minimum": 1, "maximum": .number(9_007_199_254_740_991)]), "A positive id") }
    static func uuidParam() -> JSONValue { param("id", "path", .object(["type": "string", "format": "uuid", "pattern": .string(uuidPattern)]), "The session's UUID") }
    static func intParam(_ name: String, _ fallback: Int, _ min: Int, _ max: Int, _ description: String) -> JSONValue {
        param(name, "query", .object(["type": "integer", "minimum": .number(Double(min)), "maximum": .number(Double(max)), "default": .number(Double(fallback))]),
              description, required: false)
    }
    static func limit(_ fallback: Int) -> JSONValue {
        intParam("limit", fallback, SeleneLimits.limitRange.lowerBound, SeleneLimits.limitRange.upperBound, "How many (\(fallback))")
    }

    // MARK: Schemas

    /// Text as the server checks it: trimmed, `min`…`max` code points, no control characters
    /// (tabs and line breaks allowed with `lineBreaks`). Whitespace at either end is trimmed
    /// first (the class `[^\S\x1C-\x1F]` is whitespace for both Swift and Python's regex).
    /// Long texts (`boundedInPattern` false) leave the count to `maxLength`: regex engines refuse
    /// repeats as large as {0,199998}.
    static func textPattern(max: Int, required: Bool, lineBreaks: Bool, boundedInPattern: Bool = true) -> String {
        let inner = lineBreaks ? "[^\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x9F]" : "[^\\x00-\\x1F\\x7F-\\x9F]"
        let edge = "[^\\s\\x00-\\x1F\\x7F-\\x9F]"
        let core = "\(edge)(\(inner)\(boundedInPattern ? "{0,\(max - 2)}" : "*")\(edge))?"
        return "^[^\\S\\x1C-\\x1F]*" + (required ? core : "(\(core))?") + "[^\\S\\x1C-\\x1F]*$"
    }

    static func text(max: Int, required: Bool = true, lineBreaks: Bool = false) -> JSONValue {
        if max > 20_000 {
            return .object(["type": "string", "maxLength": .number(Double(max)),
                            "pattern": .string(textPattern(max: max, required: required, lineBreaks: lineBreaks, boundedInPattern: false))])
        }
        return .object(["type": "string", "pattern": .string(textPattern(max: max, required: required, lineBreaks: lineBreaks))])
    }

    static let uuidPattern = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"
    static let dateTimePattern = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
    static let dateOrDayPattern = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])([Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?$"

    static let dateTime: JSONValue = .object(["type": "string", "format": "date-time", "pattern": .string(dateTimePattern)])
    /// What the server writes: any day of the month (the pattern above stops at the 28th so that a
    /// date generated from it is valid in every month; the server refuses impossible days).
    static let anyDayPattern = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"

    /// Schemas no request body reaches describe only what the server writes: their dates may
    /// fall on any day (a note written on the 29th).
    static func responseDatesAnyDay(_ schemas: [String: JSONValue], paths: [String: JSONValue]) -> [String: JSONValue] {
        func refs(_ value: JSONValue, into out: inout Set<String>) {
            switch value {
            case .object(let o):
                if case .string(let r)? = o["$ref"] { out.insert(String(r.split(separator: "/").last ?? "")) }
                for v in o.values { refs(v, into: &out) }
            case .array(let a): for v in a { refs(v, into: &out) }
            default: break
            }
        }
        var reached = Set<String>()
        for case .object(let methods) in paths.values {
            for case .object(let op) in methods.values { if let body = op["requestBody"] { refs(body, into: &reached) } }
        }
        var frontier = Array(reached)
        while let name = frontier.popLast() {
            var found = Set<String>()
            if let schema = schemas[name] { refs(schema, into: &found) }
            for n in found where reached.insert(n).inserted { frontier.append(n) }
        }
        let anyDay = JSONValue.object(["type": "string", "format": "date-time", "pattern": .string(anyDayPattern)])
        func loosen(_ value: JSONValue) -> JSONValue {
            if value == dateTime { return anyDay }
            switch value {
            case .object(let o): return .object(o.mapValues(loosen))
            case .array(let a): return .array(a.map(loosen))
            default: return value
            }
        }
        return Dictionary(uniqueKeysWithValues: schemas.map { name, schema in (name, reached.contains(name) ? schema : loosen(schema)) })
    }
    static let int64: JSONValue = .object(["type": "integer", "minimum": 1, "maximum": .number(9_007_199_254_740_991)])
    static let uuid: JSONValue = .object(["type": "string", "format": "uuid", "pattern": .string(uuidPattern)])
    static let string: JSONValue = .object(["type": "string"])
    static let number: JSONValue = .object(["type": "number"])
    static let integer: JSONValue = .object(["type": "integer"])
    static let bool: JSONValue = .object(["type": "boolean"])
    static let unit: JSONValue = .object(["type": "number", "minimum": 0, "maximum": 1])
    static let float: JSONValue = .object(["type": "number", "minimum": .number(-Double(Float.greatestFiniteMagnitude)),
                                           "maximum": .number(Double(Float.greatestFiniteMagnitude))])
    static func enumSchema<E: WireEnum>(_ type: E.Type) -> JSONValue {
        .object(["type": "string", "enum": .array(E.allowedValues.map(JSONValue.string))])
    }
    static func array(_ items: JSONValue, min: Int? = nil, max: Int? = nil) -> JSONValue {
        var o: [String: JSONValue] = ["type": "array", "items": items]
        if let min { o["minItems"] = .number(Double(min)) }
        if let max { o["maxItems"] = .number(Double(max)) }
        return .object(o)
    }
    /// An object; its optional properties may also be `null` (the server reads null as absent).
    static func object(_ properties: [String: JSONValue], required: [String]) -> JSONValue {
        let props = properties.mapValues { $0 }.reduce(into: [String: JSONValue]()) { out, item in
            out[item.key] = required.contains(item.key) ? item.value : nullable(item.value)
        }
        return .object(["type": "object", "properties": .object(props), "required": .array(required.map(JSONValue.string))])
    }
    /// A list answer: `{"count": n, "<key>": [...]}` plus any other fields.
    static func list(_ key: String, of item: String, extra: [String: JSONValue] = [:]) -> JSONValue {
        object(extra.merging(["count": integer, key: array(ref(item))]) { a, _ in a }, required: ["count", key] + extra.keys.sorted())
    }
    static func nullable(_ schema: JSONValue) -> JSONValue { .object(["anyOf": .array([schema, .object(["type": "null"])])]) }

    static var schemas: [String: JSONValue] {
        let content = JSONValue.object(["type": "string", "maxLength": .number(Double(SeleneLimits.maxContentBytes)),
                                        "pattern": "^[^\\x00]*([\\x1C-\\x1F]|[^\\s\\x00])[^\\x00]*$",
                                        "description": "Text with at least one non-space character; at most 1 MB (UTF-8)"])
        let embedding = array(float, min: 1, max: SeleneLimits.maxEmbeddingDimension)
        let messageText = JSONValue.object(["type": "string", "maxLength": .number(Double(SeleneLimits.maxMessage)), "pattern": "^[^\\x00]*$"])
        return [
            "Error": object(["error": string, "fields": .object(["type": "object", "additionalProperties": string])], required: ["error"]),
            "HealthStatus": object(["status": string, "timestamp": dateTime, "version": string, "commit": string], required: ["status", "timestamp"]),
            "Concept": object(["name": string, "confidence": unit], required: ["name", "confidence"]),
            "Note": object([
                "id": int64, "title": string, "content": string, "createdAt": dateTime, "source": enumSchema(NoteSource.self),
                "sourceUuid": string, "contentHash": string, "tags": array(string), "status": enumSchema(ProcessingStatus.self),
                "attempts": integer, "lastError": string, "processedAt": dateTime, "processedBy": string, "embeddingModel": string,
                "threadId": int64, "threadName": string, "concepts": array(ref("Concept")), "primaryTheme": string,
                "secondaryThemes": array(string), "sentiment": enumSchema(Sentiment.self),
                "sentimentScore": .object(["type": "number", "minimum": -1, "maximum": 1]), "emotionalTone": string,
                "energyLevel": enumSchema(EnergyLevel.self), "noteType": enumSchema(NoteType.self), "actionability": enumSchema(Actionability.self),
                "people": array(string), "places": array(string),
            ], required: ["id", "content", "createdAt", "source", "contentHash", "tags", "status", "attempts"]),
            "NoteList": list("notes", of: "Note"),
            "SearchResponse": list("notes", of: "Note", extra: ["query": string]),
            "RecentNotes": list("notes", of: "Note", extra: ["days": integer]),
            "NotesSince": list("notes", of: "Note", extra: ["since": dateTime]),
            "RelatedNote": object(["note": ref("Note"), "relationshipType": enumSchema(RelationshipType.self), "strength": unit],
                                  required: ["note", "relationshipType", "strength"]),
            "RelatedNotes": list("results", of: "RelatedNote", extra: ["noteId": int64, "source": enumSchema(RetrievalSource.self)]),
            "ThreadAssignment": object(["noteId": int64, "threadName": string, "threadId": int64], required: ["noteId", "threadName", "threadId"]),
            "ThreadAssignments": list("assignments", of: "ThreadAssignment"),
            "ScoredNote": object(["note": ref("Note"), "score": number, "keywordRank": integer, "vectorRank": integer], required: ["note", "score"]),
            "RetrieveResponse": list("results", of: "ScoredNote", extra: ["query": string, "source": enumSchema(RetrievalSource.self)]),
            "NoteThread": object(["id": int64, "name": string, "summary": string, "status": enumSchema(ThreadStatus.self), "momentum": number,
                                  "lastActivityAt": dateTime, "createdAt": dateTime, "noteCount": integer],
                                 required: ["id", "name", "summary", "status", "momentum", "lastActivityAt", "createdAt", "noteCount"]),
            "ThreadList": list("threads", of: "NoteThread"),
            "ThreadDetail": object(["thread": ref("NoteThread"), "notes": array(ref("Note"))], required: ["thread", "notes"]),
            "ThreadTask": object(["id": int64, "threadId": int64, "title": string, "status": enumSchema(TaskStatus.self),
                                  "sourceNoteId": int64, "createdAt": dateTime, "completedAt": dateTime],
                                 required: ["id", "title", "status", "createdAt"]),
            "TaskList": list("tasks", of: "ThreadTask", extra: ["threadId": int64]),
            "AllTasks": list("tasks", of: "ThreadTask"),
            "NewTask": object(["title": text(max: SeleneLimits.maxTitle)], required: ["title"]),
            "ThreadRename": object(["name": text(max: ThreadEditor.maxName)], required: ["name"]),
            "ThreadMerge": object(["into": int64], required: ["into"]),
            "ThreadSplit": object(["noteIds": array(int64, min: 1, max: 500),
                                   "name": text(max: ThreadEditor.maxName)], required: ["noteIds", "name"]),
            "NotePlacement": object(["threadId": nullable(int64)], required: ["threadId"]),
            "TaskUpdate": object(["status": enumSchema(TaskStatus.self)], required: ["status"]),
            "ChatMessage": object(["id": uuid, "role": enumSchema(MessageRole.self), "content": messageText, "createdAt": dateTime,
                                   "citedNoteIds": array(int64), "seleneCitedNoteIds": array(int64), "incomplete": bool],
                                  required: ["id", "role", "content", "createdAt"]),
            "ChatSession": object([
                "id": uuid, "title": text(max: SeleneLimits.maxTitle), "messages": array(ref("ChatMessage"), max: SeleneLimits.maxSessionMessages),
                "isPinned": bool, "compressionState": enumSchema(CompressionState.self), "compressedAt": dateTime,
                "summary": messageText, "threadId": int64, "createdAt": dateTime, "updatedAt": dateTime,
            ], required: ["id", "title", "messages", "isPinned", "compressionState", "createdAt", "updatedAt"]),
            "SessionList": list("sessions", of: "ChatSession"),
            "PinRequest": object(["isPinned": bool], required: ["isPinned"]),
            "NewMessage": object(["role": enumSchema(MessageRole.self), "content": text(max: SeleneLimits.maxMessage, lineBreaks: true)],
                                 required: ["role", "content"]),
            "ConversationMessage": object(["id": int64, "sessionId": uuid, "role": enumSchema(MessageRole.self), "content": string,
                                           "createdAt": dateTime], required: ["id", "sessionId", "role", "content", "createdAt"]),
            "MessageList": list("messages", of: "ConversationMessage"),
            "Memory": object(["id": int64, "content": string, "type": enumSchema(MemoryType.self), "confidence": unit, "sourceSessionId": uuid,
                              "embedding": array(number), "createdAt": dateTime, "lastAccessedAt": dateTime],
                             required: ["id", "content", "type", "confidence", "createdAt", "lastAccessedAt"]),
            "MemoryList": list("memories", of: "Memory"),
            "OutboundEntry": object(["id": int64, "at": dateTime, "purpose": string, "destination": string, "bytesOut": integer, "bytesIn": integer,
                                     "status": integer, "noteDerived": bool, "reason": string, "failure": string],
                                    required: ["id", "at", "purpose", "destination", "bytesOut", "bytesIn", "noteDerived"]),
            "OutboundList": list("entries", of: "OutboundEntry", extra: ["keptDays": integer]),
            "HostedConsent": object(["state": enumSchema(HostedConsent.State.self), "url": string, "model": string, "askedAt": dateTime,
                                     "decidedAt": dateTime, "messages": array(ref("LLMMessage"))], required: ["state", "messages"]),
            "HostedConsentAnswer": object(["allow": bool], required: ["allow"]),
            "NewMemory": object(["content": text(max: SeleneLimits.maxMemory, lineBreaks: true), "type": enumSchema(MemoryType.self),
                                 "confidence": unit, "sourceSessionId": uuid, "embedding": embedding],
                                required: ["content", "type", "confidence"]),
            "RememberRequest": object(["content": text(max: SeleneLimits.maxMemory, lineBreaks: true), "type": enumSchema(MemoryType.self),
                                       "sourceSessionId": uuid], required: ["content"]),
            "MemoryUpdate": .object(["type": "object",
                                     "properties": .object(["content": text(max: SeleneLimits.maxMemory, lineBreaks: true), "type": enumSchema(MemoryType.self),
                                                            "confidence": unit, "embedding": embedding].mapValues(nullable)),
                                     "anyOf": .array(["content", "type", "confidence", "embedding"].map {
                                         .object(["required": [.string($0)], "properties": .object([$0: .object(["not": .object(["type": "null"])])])])
                                     })]),
            "CreatedId": object(["id": int64], required: ["id"]),
            "TouchRequest": object(["ids": array(int64, min: 1, max: SeleneLimits.maxIds)], required: ["ids"]),
            "Touched": object(["count": integer], required: ["count"]),
            "ThreadRef": object(["id": int64, "name": string], required: ["id", "name"]),
            "Association": object(["noteA": ref("Note"), "noteB": ref("Note"), "similarity": unit, "threadA": ref("ThreadRef"), "threadB": ref("ThreadRef")],
                                  required: ["noteA", "noteB", "similarity"]),
            "AssociationList": list("associations", of: "Association"),
            "Briefing": object(["id": int64, "date": string, "text": string, "author": enumSchema(BriefingAuthor.self), "createdAt": dateTime,
                                "notes": array(ref("Note")), "threads": array(ref("NoteThread")), "associations": array(ref("Association")),
                                "tasks": array(ref("ThreadTask"))],
                               required: ["id", "date", "text", "author", "createdAt", "notes", "threads", "associations", "tasks"]),
            "LLMHealth": object(["available": bool, "chatModel": string, "embeddingModel": string, "reason": string,
                                 "provider": .object(["type": "string", "enum": .array(LLMProviderKind.allCases.map { .string($0.rawValue) })]), "url": string, "embeddingProvider": .object(["type": "string", "enum": .array(LLMProviderKind.allCases.map { .string($0.rawValue) })]),
                                 "embeddingURL": string, "embeddings": string, "pausedSince": dateTime, "pauseReason": string,
                                 "nextCheckAt": dateTime, "hosted": ref("HostedUsage")], required: ["available"]),
            "Transcription": object(["text": string], required: ["text"]),
            "HostedUsage": object(["url": string, "model": string, "personalContentAllowed": bool, "sent": integer, "keptLocal": integer,
                                   "lastSentAt": dateTime], required: ["url", "model", "personalContentAllowed", "sent", "keptLocal"]),
            "GenerateRequest": object(["prompt": text(max: SeleneLimits.maxPrompt, lineBreaks: true), "system": messageText,
                                       "model": text(max: 200), "temperature": .object(["type": "number", "minimum": 0, "maximum": 2]),
                                       "stream": bool], required: ["prompt"]),
            "GenerateResponse": object(["response": string, "model": string], required: ["response", "model"]),
            "EmbedRequest": object(["text": text(max: SeleneLimits.maxPrompt, lineBreaks: true), "model": text(max: 200)], required: ["text"]),
            "EmbedResponse": object(["embedding": array(number), "model": string], required: ["embedding", "model"]),
            "LLMMessage": object(["role": enumSchema(MessageRole.self), "content": messageText], required: ["role", "content"]),
            "LLMChatRequest": object(["messages": array(ref("LLMMessage"), min: 1, max: 200), "model": text(max: 200),
                                      "temperature": .object(["type": "number", "minimum": 0, "maximum": 2])], required: ["messages"]),
            "LLMStreamChunk": object(["delta": string, "done": bool, "error": string], required: ["done"]),
            "Device": object(["id": int64, "token": string, "platform": enumSchema(DevicePlatform.self), "createdAt": dateTime, "lastSeenAt": dateTime],
                             required: ["id", "token", "platform", "createdAt", "lastSeenAt"]),
            "DeviceList": list("devices", of: "Device"),
            "DeviceRequest": object(["token": .object(["type": "string", "pattern": "^[0-9A-Fa-f]{16,400}$"]),
                                     "platform": .object(["type": "string", "enum": ["ios", "macos"]])],
                                    required: ["token"]),
            "Unregistered": object(["removed": bool], required: ["removed"]),
            "ExportRequest": object(["noteId": int64], required: []),
            "ExportResult": object(["notes": integer, "threads": integer, "files": array(string)], required: ["notes", "threads", "files"]),
            "ProcessingCounts": object(["pending": integer, "processing": integer, "done": integer, "failed": integer],
                                       required: ["pending", "processing", "done", "failed"]),
            "DraftsCapture": object(["content": content, "title": text(max: SeleneLimits.maxTitle, required: false),
                                     "uuid": text(max: SeleneLimits.maxUuid), "tags": array(text(max: SeleneLimits.maxTag), max: SeleneLimits.maxTags),
                                     "createdAt": dateTime], required: ["content"]),
            "NewNote": object(["content": content, "title": text(max: SeleneLimits.maxTitle, required: false),
                               "tags": array(text(max: SeleneLimits.maxTag), max: SeleneLimits.maxTags),
                               "source": .object(["type": "string", "enum": ["web", "cli"]])], required: ["content"]),
            "NoteEdit": object(["content": content, "title": text(max: SeleneLimits.maxTitle, required: false),
                                "tags": array(text(max: SeleneLimits.maxTag), max: SeleneLimits.maxTags)], required: ["content"]),
            "NoteEditPatch": .object(["type": "object", "minProperties": 1, "properties": .object([
                "content": content, "title": text(max: SeleneLimits.maxTitle, required: false),
                "tags": array(text(max: SeleneLimits.maxTag), max: SeleneLimits.maxTags)])]),
            "SearchRequest": object(["query": text(max: SeleneLimits.maxQuery, lineBreaks: true), "limit": limitSchema], required: ["query"]),
            "RetrieveRequest": object(["query": text(max: SeleneLimits.maxQuery, lineBreaks: true), "limit": limitSchema,
                                       "noteType": enumSchema(NoteType.self), "actionability": enumSchema(Actionability.self)], required: ["query"]),
            "LegacySearchResult": object(["id": int64, "title": string, "primary_theme": string, "note_type": enumSchema(NoteType.self),
                                          "distance": .object(["type": "number", "minimum": 0, "maximum": 1])],
                                         required: ["id", "title", "distance"]),
            "LegacySearchResponse": list("results", of: "LegacySearchResult", extra: ["query": string]),
            "LegacyRelatedRequest": object(["noteId": int64, "limit": limitSchema,
                                            "includeLive": bool], required: ["noteId"]),
            "LegacyRelatedResult": object(["id": int64, "title": string,
                                           "relationship_type": .object(["type": "string", "enum": ["EMBEDDING", "SAME_THREAD", "KEYWORD"]]),
                                           "strength": unit, "source": .object(["type": "string", "enum": ["precomputed", "live"]])],
                                          required: ["id", "title", "relationship_type", "source"]),
            "LegacyRelatedResponse": list("results", of: "LegacyRelatedResult", extra: ["noteId": int64]),
            "ThreadAssignmentsRequest": object(["noteIds": array(int64, min: 1, max: SeleneLimits.maxIds)], required: ["noteIds"]),
        ]
    }

    static let limitSchema: JSONValue = .object(["type": "integer", "minimum": 1, "maximum": 500])
}
