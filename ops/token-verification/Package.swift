// swift-tools-version:6.1
import PackageDescription

// Tally's access-token verification beside jwt-kit's, on the same tokens in one run: the
// measurement issue 32 asks for before token signing may move to jwt-kit. A package of its own,
// never built by CI: jwt-kit (5.7.1 and 5.8.0, the versions the registry mirror has) needs
// swift-crypto 4.1 or later, and Tally builds on swift-crypto 3. Tally's token code is compiled
// here from its own files (the symbolic links under Sources/), so what is measured is what ships.
//
//   cd ops/token-verification && swift run -c release
let package = Package(
    name: "TokenVerificationComparison",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.1.0"),
    ],
    targets: [
        .target(name: "TallyJSON"),
        .target(name: "TallyProtocol", dependencies: ["TallyJSON"]),
        .target(name: "TallyAuthCore", dependencies: [
            "TallyProtocol", "TallyJSON", .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .executableTarget(name: "TokenVerificationComparison", dependencies: [
            "TallyAuthCore", .product(name: "JWTKit", package: "jwt-kit"),
        ]),
    ]
)
