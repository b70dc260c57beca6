import YcftCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

exit(Ycft.run(Array(CommandLine.arguments.dropFirst())))
