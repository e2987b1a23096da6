# 03_game_of_life/bad_input_cases.sh: the kinds of bad input only this exercise knows about,
# sourced by common/bad_input.sh (which gives $program, $tmp and expect NEEDLE PROGRAM ARGS...).
# The kinds every program has (each option's values, files read and written, rules) come from
# its --list-options; these are the lattice's own forms and the pattern files' contents.

# --size WxH and --at X,Y: two whole numbers and a separator.
for v in '' x 10 10x x10 10x10x10 -5x5 5x-5 0x5 5x0 1.5x2 99999999999999x1 1x99999999999999 axb 5X5 ' 5x5' \
         $'5x5\n' $'5\e[2Jx5' 1000000x1000000; do
  expect "--size" "$program" --size "$v"
done
for v in '' , 1 1,2,3 -1,0 0,-1 a,b 1.5,2 99999999,0 0,99999999 '1, 2' $'1,\e[2J' 64,0 0,64; do
  expect "--at" "$program" --pattern glider --size 64x64 --at "$v"
done
# --size's rule, with a value other than its default (the default itself means the same as
# leaving --size out, so --bench takes it): common/bad_input.sh knows no other valid text.
expect "--size: && --bench" "$program" --size 64x64 --bench
expect "no usable GPU" "$program" --size 160x120 --bench
# Lattices that can never fit: refused before anything is allocated.
expect "--size" "$program" --pattern glider --size 524288x524288
expect "--size" "$program" --pattern glider --size 100000x100000
# Shipped patterns by name.
expect "--pattern: 'no_such_pattern': no shipped pattern" "$program" --pattern no_such_pattern
expect "--pattern: '\\x1B[2J': no shipped pattern" "$program" --pattern $'\e[2J'
# Pattern files whose contents are wrong, each at its first bad line.
pattern() {  # needle, file name, contents (printf format), extra options...
  local needle=$1 name=$2
  printf "$3" >"$tmp/$name"
  shift 3
  expect "$needle" "$program" --pattern "$tmp/$name" "$@"
}
pattern "huge.rle:1: the pattern is 100000x100000 cells, larger than the 64x64 lattice" huge.rle 'x = 100000, y = 100000\n!\n' --size 64x64
pattern "overflow.rle:1: x = 99999999999999999999 is larger than" overflow.rle 'x = 99999999999999999999, y = 3\nbo$2bo$3o!\n'
pattern "bom.rle:1: unknown header field '\\xEF\\xBB\\xBFz'" bom.rle '\xef\xbb\xbf\xef\xbb\xbfz = 3, y = 3\nbo$2bo$3o!\n'
pattern "control.rle:1: y = '\\x01\\x02' is not a whole number" control.rle 'x = 3, y = \x01\x02\n!\n'
pattern "unterminated.rle:2: the pattern does not end with '!'" unterminated.rle 'x = 3, y = 3\nbo$2bo$3o\n'
pattern "badchar.rle:2: unknown tag 'q'" badchar.rle 'x = 3, y = 3\nbo$2bo$3q!\n'
pattern "overlong.rle:2: row 1 has 5 cells" overlong.rle 'x = 2, y = 1\n5o!\n'
pattern "rows.rle:2: more rows than the header's y = 1" rows.rle 'x = 2, y = 1\no$o!\n'
pattern "bad.cells:3: unexpected character 'X'" bad.cells '!Name: bad\n.O.\n..X\n'
pattern "wide.cells:1: a row of more than 64 cells" wide.cells "$(printf 'O%.0s' {1..65})\n" --size 64x64
pattern "tall.cells:65: more than 64 rows" tall.cells "$(printf 'O\\n%.0s' {1..65})" --size 64x64
pattern "header.rle:1: a line longer than 4096 characters" header.rle "$(printf 'x%.0s' {1..5000})\n"
pattern "crlf.rle:2: unknown tag 'q'" crlf.rle 'x = 3, y = 3\r\nbo$2bo$3q!\r\n'
pattern "--at: (70, 0) is outside the 64x64 lattice" at.rle 'x = 1, y = 1\no!\n' --size 64x64 --at 70,0
