import Fluent
import ServerCommon
import Vapor

func routes(_ app: Application) throws {
    try app.register(collection: HealthController())
    try app.register(collection: MetricsController(token: app.config.metricsToken))
    try app.register(collection: AuthController())
    try app.register(collection: CatalogController())
    try app.register(collection: AccountController())
    let api = app.grouped(RequireUser())
    try api.register(collection: ThreadController())
    try api.register(collection: CanvasController())
    try app.register(collection: ImageController())
    try app.register(collection: WebController())
    try api.register(collection: ProjectController())
    try api.register(collection: JournalController())
    try api.register(collection: PatternController())
    try api.register(collection: ShoppingController())
    try api.register(collection: SyncController())
    try api.register(collection: DeletedController())
}
