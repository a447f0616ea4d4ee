// Ccl.g4 - grammar of the .ccl language (docs/language.md).
grammar Ccl;

file : item* EOF ;

item
  : 'import' path=STRING ';'                                          # importItem
  | 'fn' name=ID '(' (params+=ID (',' params+=ID)*)? ')' block        # fnItem
  | 'collective' name=ID ('(' argList? ')')? clause* block            # collectiveItem
  | 'algorithm' name=ID 'implements' collective=ID ('(' argList? ')')?
    clause* block                                                     # algorithmItem
  | 'select' collective=ID table=ID? '{' selectRow* '}'              # selectItem
  ;

// One row of a selection table: an algorithm and when it serves a call.
selectRow : algorithm=ID clause* ';' ;

clause : name=ID '(' value=expr ('=' rhs=expr)? ')' ;

block : '{' stmt* '}' ;

stmt
  : 'scratch' name=ID '[' expr ']' ';'                            # scratchStmt
  | 'let' name=ID '=' expr ';'                                    # letStmt
  | name=ID '=' expr ';'                                          # assignStmt
  | 'for' var=ID 'in' iter=expr ('if' cond=expr)? block           # forStmt
  | 'while' cond=expr block                                       # whileStmt
  | ifStatement                                                   # ifStmt
  | 'return' expr? ';'                                            # returnStmt
  | 'ensure' expr ';'                                             # ensureStmt
  | 'require' expr ';'                                            # requireStmt
  | expr ';'                                                      # exprStmt
  ;

ifStatement : 'if' cond=expr then=block ('else' (elseBlock=block | elseIf=ifStatement))? ;

expr
  : fn=ID '(' argList? ')'                                        # callExpr
  | INT                                                           # intExpr
  | ID                                                            # idExpr
  | '(' expr ')'                                                  # parenExpr
  | base=expr '.' method=ID '(' argList? ')'                      # methodExpr
  | base=expr '[' index=expr ']'                                  # indexExpr
  | op=('-' | '!' | '~') operand=expr                             # unaryExpr
  | lhs=expr op=('*' | '/' | '%') rhs=expr                        # binaryExpr
  | lhs=expr op=('+' | '-') rhs=expr                              # binaryExpr
  | lhs=expr op=('<<' | '>>') rhs=expr                            # binaryExpr
  | lhs=expr op='..' rhs=expr                                     # binaryExpr
  | lhs=expr op=('<' | '<=' | '>' | '>=') rhs=expr                # binaryExpr
  | lhs=expr op=('==' | '!=') rhs=expr                            # binaryExpr
  | lhs=expr op='&' rhs=expr                                      # binaryExpr
  | lhs=expr op='^' rhs=expr                                      # binaryExpr
  | lhs=expr op='|' rhs=expr                                      # binaryExpr
  | lhs=expr op='&&' rhs=expr                                     # binaryExpr
  | lhs=expr op='||' rhs=expr                                     # binaryExpr
  | lhs=expr op='->' rhs=expr                                     # binaryExpr
  ;

argList : arg (',' arg)* ;
arg : (name=ID '=')? expr ;

INT : [0-9]+ ;
ID : [a-zA-Z_] [a-zA-Z_0-9]* ;
STRING : '"' ~["\r\n]* '"' ;
LINE_COMMENT : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
WS : [ \t\r\n]+ -> skip ;
// Any other character is a token of its own, so the parser reports it.
ERRCHAR : . ;
