import { useState } from 'preact/hooks';
import { navigate } from '../shared/router';
import { classifySearch, searchPath } from '../shared/search';

/** One box: a quote hash, a transaction hash or signature, or a wallet address. */
export function SearchBox({ initial }: { initial: string }) {
  const [text, setText] = useState(initial);
  const [problem, setProblem] = useState('');
  const submit = (e: Event) => {
    e.preventDefault();
    const to = searchPath(classifySearch(text));
    if (!to) {
      setProblem('Enter a quote hash, a transaction hash (0x… or a Solana signature) or a wallet address (EVM or Solana).');
      return;
    }
    setProblem('');
    navigate(to);
  };
  return (
    <form class="search" role="search" onSubmit={submit}>
      <label for="q">Search orders</label>
      <div class="search-row">
        <input
          id="q"
          name="q"
          type="search"
          value={text}
          onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
          placeholder="Quote hash, transaction or wallet address"
          autocomplete="off"
          spellcheck={false}
          aria-describedby={problem ? 'q-problem' : undefined}
          aria-invalid={problem ? true : undefined}
        />
        <button type="submit">Search</button>
      </div>
      {problem && (
        <p id="q-problem" class="notice error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
