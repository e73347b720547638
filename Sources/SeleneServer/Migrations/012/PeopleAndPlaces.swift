import Fluent
import SQLKit

/// #85: the people and places the model finds in a note, stored with the rest of its analysis
/// (JSON lists, as its concepts are) and searched among its facts. A note processed before has
/// none until it is processed again (`selene reprocess`); its facts are written here from what
/// is stored — every note's, as `NoteFactsSearch` leaves that to this step so that the facts
/// are read once the columns they are read from exist.
struct PeopleAndPlaces: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("processed_notes").field("people", .string).update()
        try await database.schema("processed_notes").field("places", .string).update()
        try await NoteFactsStore(db: database).refreshAll()
    }

    func revert(on database: any Database) async throws {
        for column in ["places", "people"] {
            try await database.schema("processed_notes").deleteField(FieldKey(stringLiteral: column)).update()
        }
    }
}
