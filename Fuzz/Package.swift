// swift-tools-version:6.0
import Foundation
import PackageDescription

// Tally's fuzz targets: one executable per reader of bytes from the network, each a libFuzzer
// entry point (`LLVMFuzzerTestOneInput`). A package of its own, depending on Tally by path, so
// that sanitizer flags and unsafe flags stay out of Tally's product and out of CI's main build.
// `ops/fuzz.sh` builds it into `.build-fuzz` with `--sanitize fuzzer -Xswiftc -sanitize=fuzzer,address`,
// which instruments Tally's modules as well as the targets, and runs the targets.
//
// Every folder under Targets/ is a target of that name: adding a target is adding a folder with
// one file, and its name to the list in ops/fuzz.sh.
let targetNames: [String] = {
    let folder = (Context.packageDirectory as NSString).appendingPathComponent("Targets")
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
}()

// What a target needs beyond what every target gets: the token target signs what it verifies.
let moreDependencies: [String: [Target.Dependency]] = [
    "token": [.product(name: "Crypto", package: "swift-crypto")]
]

let package = Package(
    name: "TallyFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Tally", path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
    ],
    targets: [
        // LeakSanitizer's C interface, for FuzzSupport.
        .target(name: "LeakSanitizer", path: "LeakSanitizer"),
        // What every target shares: reading libFuzzer's input, the frame convention, a failed
        // property as a crash, what is kept for all inputs, and Tally's services on real stores.
        .target(
            name: "FuzzSupport",
            dependencies: [
                "LeakSanitizer",
                .product(name: "TallyModules", package: "Tally"),
                .product(name: "TallyTesting", package: "Tally"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Support"),
    ] + targetNames.map { name in
        .executableTarget(
            name: name,
            dependencies: [
                "FuzzSupport",
                .product(name: "TallyModules", package: "Tally"),
                .product(name: "Logging", package: "swift-log"),
            ] + (moreDependencies[name] ?? []),
            path: "Targets/\(name)",
            // libFuzzer supplies `main`; the target only defines the entry points.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    }
)
