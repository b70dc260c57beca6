import SafeFiles
import FileErrors
import YcftCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The arguments as the bytes the kernel passed: `CommandLine.arguments` would repair invalid
// UTF-8 to U+FFFD, losing file names such as $'\xff\xfe.plist' (``PathBytes`` keeps every byte).
let arguments = (1..<Int(CommandLine.argc)).map { index in
    CommandLine.unsafeArgv[index].map { PathBytes.decode(cString: $0) } ?? ""
}
// A write beyond the file-size limit (`ulimit -f`) fails with EFBIG, reported like any write
// failure, instead of killing the process with SIGXFSZ.
signal(SIGXFSZ, SIG_IGN)
exit(Ycft.main(arguments))
