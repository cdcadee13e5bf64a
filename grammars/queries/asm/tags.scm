; Assembly tags query (tree-sitter-asm: GAS / NASM / ARM / RISC-V flavoured).
; Labels are the definitions; calls and jumps to labels are calls. The grammar has
; no functions with a body: a label is a single `name:` node.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

; A label followed by a data directive (`msg:` then `.asciz "..."`) is data.
(
  (label [(ident) (meta_ident)] @name) @definition.label
  .
  (meta kind: (meta_ident) @_directive)
  (#match? @_directive "^\\.(ascii|asciz|string|byte|2byte|4byte|8byte|short|word|hword|long|int|quad|octa|zero|space|skip|fill|float|single|double|dc|ds|db|dw|dd|dq|balign|p2align|align)$")
)

; Local labels (`.L2:`, `.loop:`) and numeric labels (`1:`) are jump targets.
(
  (label [(ident) (meta_ident)] @name) @definition.label
  (#match? @name "^(\\.|[0-9]+$)")
)

; Other labels start code: functions (the first pattern that completes wins, so this
; one waits for the next item like the data pattern above, and excludes its case).
(
  (label (ident) @name) @definition.function
  .
  (_) @_next
  (#not-match? @name "^(\\.|[0-9]+$)")
  (#not-match? @_next "^\\.(ascii|asciz|string|byte|2byte|4byte|8byte|short|word|hword|long|int|quad|octa|zero|space|skip|fill|float|single|double|dc|ds|db|dw|dd|dq|balign|p2align|align)\\b")
)

; A label at the very end of the file.
(program
  (label (ident) @name) @definition.label
  .)

; `label name` (Turing Complete syntax)
(label
  name: (word) @name) @definition.label

; Constants: `const N 10` and NASM `N equ 10`
(const
  name: (word) @name) @definition.constant

((instruction
  kind: (word) @name
  .
  (ident) @_equ) @definition.constant
  (#match? @_equ "^(?i)equ$"))

; ---------------------------------------------------------------------------
; Imports: `.include "lib/io.s"` (GAS)
; ---------------------------------------------------------------------------

((meta
  kind: (meta_ident) @_include
  (string) @name @import.module) @reference.import
  (#eq? @_include ".include"))

; ---------------------------------------------------------------------------
; Calls and jumps to labels (the target is the last operand: `call f`, `bl f`,
; `jne .L2`, `cbz x0, done`, `beq a0, a1, loop`)
; ---------------------------------------------------------------------------

((instruction
  kind: (word) @_op
  (ident) @name
  .) @reference.call
  (#match? @_op "^(?i)(call[lqw]?|rcall|acall|lcall|jmp[lqw]?|rjmp|ajmp|ljmp|sjmp|j(a|ae|b|be|c|e|g|ge|l|le|na|nae|nb|nbe|nc|ne|ng|nge|nl|nle|no|np|ns|nz|o|p|pe|po|s|z|cxz|ecxz|rcxz)|loop(e|ne|z|nz)?|b|bl|blx|bal|bra|bsr|jsr|jal|j|tail|b(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al|eqz|nez|gez|gtz|lez|ltz|ltu|geu|gtu|leu|gezal|ltzal)|bl(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)|cbn?z|tbn?z|br(eq|ne|cs|cc|sh|lo|mi|pl|ge|lt|hs|hc|ts|tc|vs|vc|ie|id))$"))

; ---------------------------------------------------------------------------
; Callbacks: a label's address taken into a register (`adr x1, f`, `la a0, f`)
; ---------------------------------------------------------------------------

((instruction
  kind: (word) @_op
  (ident) @name
  .) @reference.callback
  (#match? @_op "^(?i)(adr|adrp|la|lla)$"))
