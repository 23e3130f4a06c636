// `kmaint completion bash|zsh|fish`: a completion script generated from the commands and flags as declared, so a new
// command or flag completes without editing a script. Completes command names, flags, -o formats, the pass functions
// and file names for the flags that take a file. Also registered for kubectl-kmaint (the kubectl plugin's name).
import type { Command, Option } from 'commander';
import { UsageError } from './errors.ts';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export interface FlagSpec {
  /** `-o`, `--output`: every spelling. */
  names: string[];
  description: string;
  /** Takes a value; `values` lists the choices when there are fixed ones, `files` when the value is a path. */
  takesValue: boolean;
  values?: readonly string[];
  files?: boolean;
}

export interface CommandSpec {
  name: string;
  description: string;
  flags: FlagSpec[];
  /** Words for the first argument (the pass functions, the shells). */
  args: readonly string[];
}

export interface CompletionSpec {
  /** The executables completed: kmaint and kubectl-kmaint. */
  programs: readonly string[];
  globalFlags: FlagSpec[];
  commands: CommandSpec[];
}

/** Flags whose value is a path (completed with file names). */
const FILE_FLAGS = new Set(['--kubeconfig', '--report', '--from', '--config', '--kubeconfig-out']);

function flagSpec(option: Option, values: Readonly<Record<string, readonly string[]>>): FlagSpec {
  const names = [option.short, option.long].filter((n): n is string => n !== undefined);
  const long = option.long ?? '';
  const choices = values[long] ?? option.argChoices;
  return {
    names,
    description: option.description,
    takesValue: option.required || option.optional,
    ...(choices !== undefined ? { values: choices } : {}),
    ...(FILE_FLAGS.has(long) ? { files: true } : {}),
  };
}

/** The spec of `program` as declared; `args` and `values` add what commander does not know (argument words, -o values). */
export function completionSpec(program: Command, args: Readonly<Record<string, readonly string[]>>, values: Readonly<Record<string, readonly string[]>>): CompletionSpec {
  return {
    programs: ['kmaint', 'kubectl-kmaint'],
    globalFlags: program.options.map((o) => flagSpec(o, values)),
    commands: program.commands.map((c) => ({ name: c.name(), description: c.description(), flags: c.options.map((o) => flagSpec(o, values)), args: args[c.name()] ?? [] })),
  };
}

export function parseShell(value: string): Shell {
  if (!(SHELLS as readonly string[]).includes(value)) throw new UsageError(`unknown shell "${value}": expected one of ${SHELLS.join(', ')}`);
  return value as Shell;
}

/** The first line of a description, cut at the first colon or parenthesis: a completion menu has one short line. */
function short(description: string): string {
  return (description.split(/[:(]/)[0] ?? '').trim();
}

const single = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const words = (list: readonly string[]): string => list.join(' ');
const flagNames = (flags: readonly FlagSpec[]): string[] => flags.flatMap((f) => f.names);

function valueFlags(spec: CompletionSpec): FlagSpec[] {
  return [...spec.globalFlags, ...spec.commands.flatMap((c) => c.flags)].filter((f) => f.takesValue);
}

/** A `case` arm per value-taking flag with fixed values or files, for bash and zsh (`words` builds the reply). */
function valueArms(spec: CompletionSpec, choices: (values: readonly string[]) => string, files: string): string[] {
  const seen = new Set<string>();
  const arms: string[] = [];
  for (const f of valueFlags(spec)) {
    const key = f.names.join('|');
    if (seen.has(key) || (f.values === undefined && f.files !== true)) continue;
    seen.add(key);
    arms.push(`    ${key}) ${f.values !== undefined ? choices(f.values) : files}; return ;;`);
  }
  return arms;
}

function bash(spec: CompletionSpec): string {
  const takesValue = [...new Set(flagNames(valueFlags(spec)))].join('|');
  return [
    `# bash completion for ${spec.programs.join(' and ')}: source <(kmaint completion bash)`,
    '_kmaint() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmd="" i',
    '  # The command is the first word that is neither a flag nor the value of one.',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    case "${COMP_WORDS[i]}" in',
    `      ${takesValue}) ((i++)) ;;`,
    '      -*) ;;',
    '      *) cmd="${COMP_WORDS[i]}"; break ;;',
    '    esac',
    '  done',
    '  case "$prev" in',
    ...valueArms(spec, (v) => `COMPREPLY=($(compgen -W "${words(v)}" -- "$cur"))`, 'COMPREPLY=($(compgen -f -- "$cur"))'),
    '  esac',
    `  local global="${words(flagNames(spec.globalFlags))}"`,
    '  case "$cmd" in',
    `    "") COMPREPLY=($(compgen -W "${words(spec.commands.map((c) => c.name))} $global" -- "$cur")) ;;`,
    ...spec.commands.map((c) => `    ${c.name}) COMPREPLY=($(compgen -W "${words([...c.args, ...flagNames(c.flags)])} $global" -- "$cur")) ;;`),
    '  esac',
    '}',
    `complete -F _kmaint ${spec.programs.join(' ')}`,
    '',
  ].join('\n');
}

function zsh(spec: CompletionSpec): string {
  const takesValue = [...new Set(flagNames(valueFlags(spec)))].join('|');
  return [
    `#compdef ${spec.programs.join(' ')}`,
    `# zsh completion for ${spec.programs.join(' and ')}: source <(kmaint completion zsh), or save as _kmaint in $fpath`,
    '_kmaint() {',
    '  local cmd="" i',
    '  local -a commands global',
    `  commands=(${spec.commands.map((c) => single(`${c.name}:${short(c.description)}`)).join(' ')})`,
    `  global=(${flagNames(spec.globalFlags).join(' ')})`,
    '  # The command is the first word that is neither a flag nor the value of one.',
    '  for ((i = 2; i < CURRENT; i++)); do',
    '    case "${words[i]}" in',
    `      ${takesValue}) ((i++)) ;;`,
    '      -*) ;;',
    '      *) cmd="${words[i]}"; break ;;',
    '    esac',
    '  done',
    '  case "${words[CURRENT-1]}" in',
    ...valueArms(spec, (v) => `compadd -- ${words(v)}`, '_files'),
    '  esac',
    '  case "$cmd" in',
    '    "") if [[ "${words[CURRENT]}" == -* ]]; then compadd -- $global; else _describe command commands; fi ;;',
    ...spec.commands.map((c) => `    ${c.name}) compadd -- ${words([...c.args, ...flagNames(c.flags)])} $global ;;`),
    '  esac',
    '}',
    // Run by the completion system when loaded from $fpath; registered when sourced.
    'if [[ "${funcstack[1]}" == "_kmaint" ]]; then _kmaint "$@"; else compdef _kmaint ' + spec.programs.join(' ') + '; fi',
    '',
  ].join('\n');
}

function fishFlag(program: string, f: FlagSpec, condition: string | undefined): string {
  const names = f.names.map((n) => (n.startsWith('--') ? `-l ${n.slice(2)}` : `-s ${n.slice(1)}`)).join(' ');
  const value = f.values !== undefined ? ` -x -a ${single(words(f.values))}` : f.files === true ? ' -r -F' : f.takesValue ? ' -x' : '';
  return `complete -c ${program}${condition !== undefined ? ` -n ${single(condition)}` : ''} ${names}${value} -d ${single(short(f.description))}`;
}

function fish(spec: CompletionSpec): string {
  const all = spec.commands.map((c) => c.name).join(' ');
  const lines = [`# fish completion for ${spec.programs.join(' and ')}: kmaint completion fish | source`];
  for (const program of spec.programs) {
    lines.push(`complete -c ${program} -f`);
    for (const c of spec.commands) lines.push(`complete -c ${program} -n ${single(`not __fish_seen_subcommand_from ${all}`)} -a ${c.name} -d ${single(short(c.description))}`);
    for (const f of spec.globalFlags) lines.push(fishFlag(program, f, undefined));
    for (const c of spec.commands) {
      const inCommand = `__fish_seen_subcommand_from ${c.name}`;
      if (c.args.length > 0) lines.push(`complete -c ${program} -n ${single(inCommand)} -a ${single(words(c.args))}`);
      for (const f of c.flags) lines.push(fishFlag(program, f, inCommand));
    }
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: Shell, spec: CompletionSpec): string {
  switch (shell) {
    case 'bash':
      return bash(spec);
    case 'zsh':
      return zsh(spec);
    case 'fish':
      return fish(spec);
  }
}
