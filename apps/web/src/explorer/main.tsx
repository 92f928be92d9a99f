import { render } from 'preact';
import '../shared/style.css';
import { ExplorerApp } from './ExplorerApp';

const root = document.getElementById('app')!;
// The page's own "Loading…" text goes; Preact renders into an empty element.
root.textContent = '';
render(<ExplorerApp />, root);
