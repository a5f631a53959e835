printf 'num_ranks 2\nrank 0 {\na: send 8b to 1\n}\nrank 1 {\nb: recv 8b from 0\nc: calc 10\nc requires z\n}\n' > bad.goal; $LLAMP analyze bad.goal; s=$?; rm -f bad.goal; exit $s
