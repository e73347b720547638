import Fluent

/// Every migration in the order it runs. Append only: a released migration never changes.
enum StitchMigrations {
    static let all: [any Migration] = [
        CreateUsers(),
        CreateIdentities(),
        CreateRefreshTokens(),
        CreateLoginThrottles(),
        CreateThreads(),
        CreateCanvases(),
        CreateProjects(),
        CreateProjectSections(),
        CreateProjectThreads(),
        CreateJournalEntries(),
        CreateJournalImages(),
        CreateImages(),
        CreateWebSessions(),
        AddSyncCursorIndexes(),
        AddExpiryIndexes(),
        AddThreadCatalogColorName(),
        CreatePatterns(),
        CreateClientThrottles(),
        AddPatternRenderClaims(),
        CreateShoppingLines(),
        AllowProjectsWithoutCanvas(),
        CreatePasswordResets(),
        CreateAppliedWebPurchases(),
        RefreshTokenUsedBy(),
        ProjectPicture(),
        PictureWidths(),
        AppliedWebChanges(),
        EmailProven(),
        TombstonesRemoved(),
        ProjectSize(),
    ]
}
