// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {ShortString, ShortStrings} from "@openzeppelin/contracts/utils/ShortStrings.sol";

/// Local-chain test tokens. DEV ONLY: `mint` is open to anyone. The local devnet copies their
/// runtime code to the registry's token addresses with `anvil_setCode`, which carries code but no
/// storage, so name, symbol and decimals live in immutables (names of at most 31 bytes), and
/// OpenZeppelin's EIP712 rebuilds the domain separator for the address the code runs at.

contract DevToken is ERC20 {
    using ShortStrings for *;

    ShortString private immutable _shortName;
    ShortString private immutable _shortSymbol;
    uint8 private immutable _decimals;

    constructor(string memory name_, string memory symbol_, uint8 decimals_) ERC20(name_, symbol_) {
        _shortName = name_.toShortString();
        _shortSymbol = symbol_.toShortString();
        _decimals = decimals_;
    }

    function name() public view override returns (string memory) {
        return _shortName.toString();
    }

    function symbol() public view override returns (string memory) {
        return _shortSymbol.toString();
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    /// @dev Dev only: anyone mints.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}

/// EIP-2612 with a chosen domain version (USDC signs under "2"; OpenZeppelin's ERC20Permit fixes "1").
contract DevPermitToken is DevToken, EIP712, Nonces, IERC20Permit {
    bytes32 private constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    error ERC2612ExpiredSignature(uint256 deadline);
    error ERC2612InvalidSigner(address signer, address owner);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, string memory version_)
        DevToken(name_, symbol_, decimals_)
        EIP712(name_, version_)
    {}

    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        if (block.timestamp > deadline) revert ERC2612ExpiredSignature(deadline);
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _useNonce(owner), deadline));
        address signer = ECDSA.recover(_hashTypedDataV4(structHash), v, r, s);
        if (signer != owner) revert ERC2612InvalidSigner(signer, owner);
        _approve(owner, spender, value);
    }

    function nonces(address owner) public view override(IERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @dev USDC-style read of the domain version (wallets and the quote engine ask for it).
    function version() external view returns (string memory) {
        return _EIP712Version();
    }
}
