// The log panel page. It is a placeholder until log panels land: it tells the user so
// instead of showing an empty page.
const root = document.getElementById('root');
if (root) root.textContent = 'Skydeck log panels are not available in this version yet.';
