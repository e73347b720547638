import Fluent
import SQLKit

/// Every migration in the order it runs. Append only: a released migration never changes.
enum SeleneMigrations {
    static let all: [any Migration] = [
        CreateNotes(),
        CreateNoteSearch(),
        CreateProcessedNotes(),
        CreateNoteEmbeddings(),
        CreateNoteAssociations(),
        CreateThreads(),
        CreateThreadNotes(),
        CreateThreadTasks(),
        CreateChatSessions(),
        CreateConversationMessages(),
        CreateMemories(),
        CreateDeviceTokens(),
        CreateBriefings(),
        CreateWebSessions(),
        TasksFromAnyNote(),
        WebPushSubscriptions(),
        NoteChunkEmbeddings(),
        JobLeases(),
        ThreadsCorrectedByHand(),
        FullTextWithoutPendingList(),
        CreateOutbound(),
        CreateHostedConsent(),
        NoteFactsSearch(),
        PeopleAndPlaces(),
    ]
}

extension Database {
    var sql: any SQLDatabase {
        guard let sql = self as? any SQLDatabase else { fatalError("Selene needs an SQL database") }
        return sql
    }

    var isPostgres: Bool { sql.dialect.name == "postgresql" }
}
