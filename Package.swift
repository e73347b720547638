// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Stitchuation",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "StitchCore", targets: ["StitchCore"]),
        .library(name: "StitchServer", targets: ["StitchServer"]),
        .executable(name: "stitchuation", targets: ["stitchuation"]),
        .library(name: "StitchKit", targets: ["StitchKit"]),
        .library(name: "StitchDesign", targets: ["StitchDesign"]),
        .executable(name: "stitch", targets: ["stitch"]),
        .library(name: "SeleneShared", targets: ["SeleneShared"]),
        .library(name: "SeleneServer", targets: ["SeleneServer"]),
        .executable(name: "selene", targets: ["selene"]),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.0"),
        .package(url: "https://github.com/vapor/fluent.git", from: "4.13.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", from: "2.14.0"),
        .package(url: "https://github.com/vapor/jwt.git", from: "5.2.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.24.0"),
        // Selene's push: TLS settings for the APNs client; HTTP/2 and certificates for its test peer.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        // /metrics on both servers: swift-metrics (which Vapor reports requests to) in Prometheus's text format.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        // `swift package generate-documentation`: DocC for StitchCore, StitchKit and SeleneShared
        // (scripts/docs, run by scripts/test). A command plugin: nothing of it is linked into a product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // Domain records, validation, wire protocol. Foundation only, so every end can share it.
        // The wire format both products share: RFC 3339 instants at millisecond precision and the
        // JSON coders built on them. Foundation only, like the two libraries that re-export it.
        .target(name: "WireCoding"),
        .target(name: "StitchCore", dependencies: ["WireCoding"]),
        // Design tokens of SPEC §4 and the stylesheet generated from them. Foundation only.
        .target(name: "StitchDesign"),
        // The commit a build is made from (git, at build time), shown beside each product's version.
        .plugin(name: "CommitStamp", capability: .buildTool()),
        .target(name: "BuildStamp", plugins: ["CommitStamp"]),
        // What both servers share: the 405 middleware, decoding-error sentences, the HTML tree,
        // migrating one instance at a time.
        // Static files are compressed once, at start: gzip (zlib) and Brotli (Debian packages
        // zlib1g-dev and libbrotli-dev; scripts/system-packages installs them when missing).
        .systemLibrary(name: "CSystemZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSystemBrotli", providers: [.apt(["libbrotli-dev"])]),
        .target(name: "ServerCommon", dependencies: [
            "CSystemZlib", "CSystemBrotli", "BuildStamp",
            .product(name: "Vapor", package: "vapor"),
            .product(name: "Fluent", package: "fluent"),
            .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
            .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ], resources: [.copy("Resources/service-worker.js")]),
        // Scan-to-add: ZBar decodes barcodes, libgd reads the photo they are in (Debian packages;
        // scripts/test and scripts/run install them when missing).
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CGD", providers: [.apt(["libgd-dev"])]),
        .target(
            name: "StitchServer",
            dependencies: [
                "StitchCore", "StitchDesign", "ServerCommon", "BuildStamp", "CZBar", "CGD",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "JWT", package: "jwt"),
                // Mail (password resets) over SMTP with STARTTLS or TLS.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // S3-compatible object storage (STORAGE_URL).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [.copy("Resources/openapi.json"), .copy("Resources/fonts"), .copy("Resources/catalogs"), .copy("Resources/web")]
        ),
        .executableTarget(
            name: "stitchuation",
            dependencies: ["StitchServer", "ServerCommon", "BuildStamp", .product(name: "Vapor", package: "vapor")]
        ),
        // The offline-first client library. No server imports: it must also build for iOS/macOS.
        .target(name: "StitchKit", dependencies: ["StitchCore", .product(name: "GRDB", package: "GRDB.swift")]),
        // How both terminal clients (stitch, selene) reach their server on Linux: AsyncHTTPClient,
        // since swift-corelibs-foundation's URLSession keeps a core busy while it waits.
        .target(name: "TerminalExchange", dependencies: ["WireCoding", .product(name: "AsyncHTTPClient", package: "async-http-client")]),
        .executableTarget(
            name: "stitch",
            dependencies: ["StitchKit", "StitchCore", "BuildStamp", "TerminalExchange",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Benchmarks, run on purpose (not by the test suite): swift run -c release stitch-bench
        .executableTarget(
            name: "stitch-bench",
            dependencies: ["StitchServer", "StitchKit", "StitchCore", "ServerCommon",
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "Vapor", package: "vapor"),
                           .product(name: "Fluent", package: "fluent"),
                           .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver")]
        ),
        // Selene: the client-side brain (records, wire types, providers, logic, view models).
        // Foundation (+ Observation) only: it must also build for iOS/macOS.
        .target(name: "SeleneShared", dependencies: ["WireCoding"]),
        // The 8-bit dot product of Selene's vector index, chosen for the processor at run time.
        .target(name: "CVectorDot"),
        .target(
            name: "SeleneServer",
            dependencies: [
                "SeleneShared", "ServerCommon", "BuildStamp", "CVectorDot",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWT", package: "jwt"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            resources: [.copy("Resources/web")]
        ),
        .executableTarget(
            name: "selene",
            dependencies: ["SeleneServer", "SeleneShared", "ServerCommon", "BuildStamp", "TerminalExchange",
                           .product(name: "Vapor", package: "vapor"),
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // An Ollama-protocol server with deterministic answers and faults on demand, for the test
        // suites (in process) and the browser tests (as `selene-ollama-stub`). Never in production.
        .target(name: "OllamaStub", dependencies: ["SeleneShared", .product(name: "Vapor", package: "vapor")]),
        .executableTarget(name: "selene-ollama-stub", dependencies: ["OllamaStub", .product(name: "Vapor", package: "vapor")]),
        // Apple, Instagram and TikTok speaking their real sign-in protocols, for the server's suites
        // (in process) and the browser tests (as `provider-standins`). Never in production.
        .target(name: "ProviderStandIns", dependencies: [.product(name: "Vapor", package: "vapor"), .product(name: "JWT", package: "jwt")]),
        .executableTarget(name: "provider-standins", dependencies: ["ProviderStandIns"]),
        // Selene's benchmarks, run on purpose: swift run -c release selene-bench
        .executableTarget(
            name: "selene-bench",
            dependencies: ["SeleneServer", "SeleneShared", "ServerCommon", "OllamaStub",
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "Vapor", package: "vapor")]
        ),
        // Per-test PostgreSQL databases and free ports, for both servers' suites.
        .target(name: "TestDatabases", dependencies: ["ServerCommon", .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                                                      .product(name: "Fluent", package: "fluent"), .product(name: "Vapor", package: "vapor")],
                path: "Tests/TestDatabases"),
        .testTarget(name: "SeleneSharedTests", dependencies: ["SeleneShared"]),
        .testTarget(
            name: "SeleneServerTests",
            dependencies: [
                "SeleneServer", "SeleneShared", "ServerCommon", "OllamaStub", "TestDatabases", "BuildStamp",
                .product(name: "VaporTesting", package: "vapor"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWT", package: "jwt"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .testTarget(name: "StitchCoreTests", dependencies: ["StitchCore"]),
        .testTarget(name: "StitchKitTests", dependencies: ["StitchKit", "StitchCore", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "StitchDesignTests", dependencies: ["StitchDesign"]),
        .testTarget(
            name: "StitchServerTests",
            dependencies: [
                "StitchServer", "StitchCore", "StitchKit", "ServerCommon", "TestDatabases", "CGD", "CSystemZlib", "BuildStamp", "ProviderStandIns",
                .product(name: "VaporTesting", package: "vapor"),
                .product(name: "JWT", package: "jwt"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ]
)
