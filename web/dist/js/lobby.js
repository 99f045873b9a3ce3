export async function renderLobby(root) { root.textContent = "lobby"; }
