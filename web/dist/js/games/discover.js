import { h, s } from "../dom.js";
export const status = () => "";
export const targetOf = () => null;
export const board = () => s("svg", { viewBox: "0 0 10 10" });
export const players = () => h("div");
