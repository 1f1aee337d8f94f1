module codemode.bench/bigint

go 1.21
